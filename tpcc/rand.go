package tpcc

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strconv"
)

// Rand is the driver's source of randomness: a math/rand/v2 PCG generator
// held as a value, never a global, so that every warehouse of a load (and
// every terminal of a run) has its own reproducible stream. A Rand is not
// safe for concurrent use; give each goroutine its own.
type Rand struct{ r *rand.Rand }

// NewRand returns a generator for (seed, stream). Different streams of one
// seed are independent; the same pair always yields the same sequence.
func NewRand(seed, stream uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, stream))}
}

// Int returns a uniform integer in [lo, hi], both inclusive: the spec's
// random(x..y) (clause 2.1.5).
func (r *Rand) Int(lo, hi int) int {
	return lo + r.r.IntN(hi-lo+1)
}

// Float64 returns a uniform float in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// NURand is the non-uniform random function of clause 2.1.6:
// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *Rand) NURand(a, x, y, c int) int {
	return (((r.Int(0, a) | r.Int(x, y)) + c) % (y - x + 1)) + x
}

// alnum is the a-string alphabet. Clause 4.3.2.2 asks for a character set
// of at least 128 characters including a-z, A-Z and 0-9; like CockroachDB's
// and go-tpc's loaders we use the 62 alphanumerics, which need no escaping
// in COPY text format or SQL literals and keep rows the spec's byte length.
const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// alnumPairs[i] is the two characters alnum[i/62], alnum[i%62], little
// endian: one table read writes two characters.
var alnumPairs = func() (t [62 * 62]uint16) {
	for i := range t {
		t[i] = uint16(alnum[i/62]) | uint16(alnum[i%62])<<8
	}
	return t
}()

// digitPairs[i] is the two decimal digits of i (0..99), little endian.
var digitPairs = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return t
}()

// loadRand is the population's random source (clause 4.3.3.1). Its
// integers come from the same math/rand/v2 PCG per (seed, stream) as
// Rand's; its characters, ~51 million a warehouse and most of a load's
// client CPU, are made in bulk:
//
//   - a-string characters come from a 4 KiB pool, eight per 64-bit draw:
//     each 32-bit half, multiplied by 62*62 twice, gives two base-3844
//     digits (its top bits, then those of the remainder), each a table
//     read of two characters. No modulo, no rejection, no branch per
//     character. Every character is uniform to within 62/2^32, and every
//     four consecutive characters of a half to within 0.35% (2^32 is not
//     a multiple of 62^4). Strings take the pool's characters in order,
//     so each is used once. The pool's draws are xoshiro256++ (Blackman
//     and Vigna), seeded with four PCG draws: cheaper per draw than PCG
//     per draw, and with a 2^256 period, streams seeded at random do not
//     overlap.
//   - integers in [lo, hi] take the high 64 bits of draw*(hi-lo+1)
//     (multiply-shift, Lemire), uniform to within (hi-lo+1)/2^64.
//
// Values differ from Rand's for the same stream; what matters is that a
// (seed, stream) always gives the same rows. Not safe for concurrent use.
type loadRand struct {
	pcg  rand.PCG
	xo   [4]uint64 // xoshiro256++ state of the pool
	pos  int       // next unused character of pool
	pool [4096]byte
}

// newLoadRand returns the population source for (seed, stream).
func newLoadRand(seed, stream uint64) *loadRand {
	r := &loadRand{}
	r.pcg.Seed(seed, stream)
	for i := range r.xo {
		r.xo[i] = r.pcg.Uint64() // all zero has probability 2^-256
	}
	r.pos = len(r.pool)
	return r
}

// intn returns a uniform integer in [0, n), n > 0.
func (r *loadRand) intn(n int) int {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(n))
	return int(hi)
}

// Int returns a uniform integer in [lo, hi], both inclusive: the spec's
// random(x..y) (clause 2.1.5).
func (r *loadRand) Int(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// NURand is clause 2.1.6's NURand(A, x, y) with constant C.
func (r *loadRand) NURand(a, x, y, c int) int {
	return (((r.Int(0, a) | r.Int(x, y)) + c) % (y - x + 1)) + x
}

// refill regenerates the whole character pool.
func (r *loadRand) refill() {
	p := &r.pool
	s0, s1, s2, s3 := r.xo[0], r.xo[1], r.xo[2], r.xo[3]
	for i := 0; i+8 <= len(p); i += 8 {
		v := bits.RotateLeft64(s0+s3, 23) + s0 // xoshiro256++
		t := s1 << 17
		s2 ^= s0
		s3 ^= s1
		s1 ^= s2
		s0 ^= s3
		s2 ^= t
		s3 = bits.RotateLeft64(s3, 45)

		a, c := (v&0xffffffff)*(62*62), (v>>32)*(62*62)
		w := uint64(alnumPairs[a>>32]) | uint64(alnumPairs[c>>32])<<16
		a, c = (a&0xffffffff)*(62*62), (c&0xffffffff)*(62*62)
		w |= uint64(alnumPairs[a>>32])<<32 | uint64(alnumPairs[c>>32])<<48
		binary.LittleEndian.PutUint64(p[i:], w)
	}
	r.xo = [4]uint64{s0, s1, s2, s3}
	r.pos = 0
}

// appendAlnum appends n random alphanumerics.
func (r *loadRand) appendAlnum(dst []byte, n int) []byte {
	if p := r.pos; p+n <= len(r.pool) {
		r.pos = p + n
		return append(dst, r.pool[p:p+n]...)
	}
	for n > 0 {
		if r.pos == len(r.pool) {
			r.refill()
		}
		k := min(n, len(r.pool)-r.pos)
		dst = append(dst, r.pool[r.pos:r.pos+k]...)
		r.pos += k
		n -= k
	}
	return dst
}

// AppendAString appends an a-string of uniform length in [min, max]
// (clause 4.3.2.2).
func (r *loadRand) AppendAString(dst []byte, min, max int) []byte {
	n := min
	if max > min {
		n = r.Int(min, max)
	}
	return r.appendAlnum(dst, n)
}

// AppendNString appends an n-string (digits only, clause 4.3.2.2) of
// uniform length in [min, max].
func (r *loadRand) AppendNString(dst []byte, min, max int) []byte {
	n := min
	if max > min {
		n = r.Int(min, max)
	}
	return r.appendDigits(dst, n)
}

// appendDigits appends n uniform decimal digits, eight per 64-bit draw:
// each 32-bit half multiplied by 100 twice gives two digit pairs, uniform
// to within 100/2^32.
func (r *loadRand) appendDigits(dst []byte, n int) []byte {
	var w [8]byte
	for n > 0 {
		v := r.pcg.Uint64()
		a, c := (v&0xffffffff)*100, (v>>32)*100
		x := uint64(digitPairs[a>>32]) | uint64(digitPairs[c>>32])<<16
		a, c = (a&0xffffffff)*100, (c&0xffffffff)*100
		x |= uint64(digitPairs[a>>32])<<32 | uint64(digitPairs[c>>32])<<48
		binary.LittleEndian.PutUint64(w[:], x)
		k := min(n, 8)
		dst = append(dst, w[:k]...)
		n -= k
	}
	return dst
}

// AppendData appends an a-string in [min, max] that, with probability 10%,
// contains "ORIGINAL" at a random position: I_DATA and S_DATA of clause
// 4.3.3.1. (CockroachDB's loader uses 1/9; the spec says 10%.)
func (r *loadRand) AppendData(dst []byte, min, max int) []byte {
	start := len(dst)
	dst = r.AppendAString(dst, min, max)
	if r.intn(10) == 0 {
		n := len(dst) - start
		pos := r.Int(0, n-len("ORIGINAL"))
		copy(dst[start+pos:], "ORIGINAL")
	}
	return dst
}

// AppendZip appends a zip code: an n-string of 4 followed by "11111"
// (clause 4.3.2.7).
func (r *loadRand) AppendZip(dst []byte) []byte {
	return append(r.appendDigits(dst, 4), "11111"...)
}

// AppendState appends a 2-letter state (an a-string of 2, clause 4.3.3.1).
func (r *loadRand) AppendState(dst []byte) []byte { return r.appendAlnum(dst, 2) }

// AppendPermutation fills dst[:n] with a uniform random permutation of
// 1..n (Fisher-Yates), for O_C_ID at load (clause 4.3.3.1).
func (r *loadRand) AppendPermutation(dst []int32, n int) []int32 {
	dst = dst[:0]
	for i := 1; i <= n; i++ {
		dst = append(dst, int32(i))
	}
	for i := n - 1; i > 0; i-- {
		j := r.intn(i + 1)
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

// syllables of C_LAST, clause 4.3.2.3, indexed by digit.
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames holds the 1000 C_LAST values back to back; lastNameEnd[n] is
// where name n ends. The loader writes 30,000 a warehouse.
var lastNames, lastNameEnd = func() (string, [1000]uint16) {
	var b []byte
	var end [1000]uint16
	for n := range end {
		b = append(b, syllables[n/100]...)
		b = append(b, syllables[(n/10)%10]...)
		b = append(b, syllables[n%10]...)
		end[n] = uint16(len(b))
	}
	return string(b), end
}()

// AppendLastName appends the C_LAST for num in [0, 999]: the syllables of
// its three decimal digits (clause 4.3.2.3), e.g. 371 -> PRICALLYOUGHT.
func AppendLastName(dst []byte, num int) []byte {
	start := 0
	if num > 0 {
		start = int(lastNameEnd[num-1])
	}
	return append(dst, lastNames[start:lastNameEnd[num]]...)
}

// LastName returns the C_LAST for num in [0, 999] (clause 4.3.2.3).
func LastName(num int) string { return string(AppendLastName(nil, num)) }

// Constants are the NURand C values (clause 2.1.6): for C_LAST (A=255),
// C_ID (A=1023), OL_I_ID (A=8191). One set is used by all terminals of a
// run.
type Constants struct{ CLast, CID, OLIID int }

// NURand A values of clause 2.1.6.
const (
	aCLast = 255
	aCID   = 1023
	aOLIID = 8191
)

// NewLoadConstants draws C-Load: each C uniform in [0, A] (clause 2.1.6).
// Only CLast is used during population (for customers 1001..3000); the
// others are drawn so that the set is complete.
func NewLoadConstants(r *Rand) Constants {
	return Constants{CLast: r.Int(0, aCLast), CID: r.Int(0, aCID), OLIID: r.Int(0, aOLIID)}
}

// ValidCDelta reports whether C-Run for C_LAST may be used with C-Load:
// clause 2.1.6.1 requires |C-Load - C-Run| in [65, 119], excluding 96 and
// 112.
func ValidCDelta(load, run int) bool {
	d := load - run
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// NewRunConstants draws C-Run for a measurement run against a database
// populated with load. C_LAST's C is uniform over the values in [0, 255]
// whose delta to load.CLast is valid (clause 2.1.6.1); C_ID and OL_I_ID
// have no load-time use and are drawn fresh in [0, A].
func NewRunConstants(r *Rand, load Constants) Constants {
	var cands [aCLast + 1]int
	n := 0
	for c := 0; c <= aCLast; c++ {
		if ValidCDelta(load.CLast, c) {
			cands[n] = c
			n++
		}
	}
	// n > 0 for every load.CLast in [0, 255]: either load+65..load+119 or
	// load-119..load-65 fits in [0, 255].
	return Constants{CLast: cands[r.r.IntN(n)], CID: r.Int(0, aCID), OLIID: r.Int(0, aOLIID)}
}

// CustomerID draws a C_ID for a run: NURand(1023, 1, 3000) (clause 2.4.1.2).
func (r *Rand) CustomerID(c Constants) int { return r.NURand(aCID, 1, 3000, c.CID) }

// ItemID draws an OL_I_ID for a run: NURand(8191, 1, 100000) (clause
// 2.4.1.5).
func (r *Rand) ItemID(c Constants) int { return r.NURand(aOLIID, 1, 100000, c.OLIID) }

// LastNameRun draws a C_LAST for a run: LastName(NURand(255, 0, 999))
// (clauses 2.5.1.2, 2.6.1.2).
func (r *Rand) LastNameRun(c Constants) string {
	return LastName(r.NURand(aCLast, 0, 999, c.CLast))
}

// String renders constants for logs: "C_LAST=12 C_ID=345 OL_I_ID=6789".
func (c Constants) String() string {
	return "C_LAST=" + strconv.Itoa(c.CLast) + " C_ID=" + strconv.Itoa(c.CID) + " OL_I_ID=" + strconv.Itoa(c.OLIID)
}
