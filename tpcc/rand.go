package tpcc

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// Rand is the driver's source of randomness: a math/rand/v2 PCG generator
// held as a value, never a global, so that every warehouse of a load (and
// every terminal of a run) has its own reproducible stream. A Rand is not
// safe for concurrent use; give each goroutine its own.
type Rand struct {
	r   *rand.Rand
	pcg *rand.PCG // the same generator, for raw 64-bit draws
}

// NewRand returns a generator for (seed, stream). Different streams of one
// seed are independent; the same pair always yields the same sequence.
func NewRand(seed, stream uint64) *Rand {
	p := rand.NewPCG(seed, stream)
	return &Rand{r: rand.New(p), pcg: p}
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

// fillAlnum fills out with uniform alphanumerics, taking ten 6-bit chunks
// from each 64-bit draw and rejecting the values 62 and 63: one PCG call
// per ~10 characters, and no append bookkeeping per character. This is
// where most of a load's client CPU goes (a warehouse holds ~36 MB of
// a-strings). (Two characters per 12-bit chunk measured no faster.)
func (r *Rand) fillAlnum(out []byte) {
	i := 0
	for i < len(out) {
		x := r.pcg.Uint64()
		for k := 0; k < 10 && i < len(out); k++ {
			if v := x & 63; v < 62 {
				out[i] = alnum[v]
				i++
			}
			x >>= 6
		}
	}
}

// fillDigits fills out with uniform decimal digits, sixteen 4-bit chunks
// per draw, rejecting 10..15.
func (r *Rand) fillDigits(out []byte) {
	i := 0
	for i < len(out) {
		x := r.pcg.Uint64()
		for k := 0; k < 16 && i < len(out); k++ {
			if v := x & 15; v < 10 {
				out[i] = '0' + byte(v)
				i++
			}
			x >>= 4
		}
	}
}

// grow extends dst by n bytes and returns the whole slice and the new part.
func grow(dst []byte, n int) ([]byte, []byte) {
	dst = slices.Grow(dst, n)
	l := len(dst)
	dst = dst[:l+n]
	return dst, dst[l:]
}

// AppendAString appends an a-string of uniform length in [min, max]
// (clause 4.3.2.2) to dst. The loader uses it to fill reused buffers.
func (r *Rand) AppendAString(dst []byte, min, max int) []byte {
	dst, out := grow(dst, r.Int(min, max))
	r.fillAlnum(out)
	return dst
}

// AppendNString appends an n-string (digits only, clause 4.3.2.2) of
// uniform length in [min, max] to dst.
func (r *Rand) AppendNString(dst []byte, min, max int) []byte {
	dst, out := grow(dst, r.Int(min, max))
	r.fillDigits(out)
	return dst
}

// AString returns an a-string of uniform length in [min, max] (clause
// 4.3.2.2).
func (r *Rand) AString(min, max int) string { return string(r.AppendAString(nil, min, max)) }

// NString returns an n-string of uniform length in [min, max].
func (r *Rand) NString(min, max int) string { return string(r.AppendNString(nil, min, max)) }

// AppendData appends an a-string in [min, max] that, with probability 10%,
// contains "ORIGINAL" at a random position: I_DATA and S_DATA of clause
// 4.3.3.1. (CockroachDB's loader uses 1/9; the spec says 10%.)
func (r *Rand) AppendData(dst []byte, min, max int) []byte {
	start := len(dst)
	dst = r.AppendAString(dst, min, max)
	if r.r.IntN(10) == 0 {
		n := len(dst) - start
		pos := r.Int(0, n-len("ORIGINAL"))
		copy(dst[start+pos:], "ORIGINAL")
	}
	return dst
}

// AppendZip appends a zip code: an n-string of 4 followed by "11111"
// (clause 4.3.2.7).
func (r *Rand) AppendZip(dst []byte) []byte {
	dst, out := grow(dst, 4)
	r.fillDigits(out)
	return append(dst, "11111"...)
}

// AppendState appends a 2-letter state (an a-string of 2, clause 4.3.3.1).
func (r *Rand) AppendState(dst []byte) []byte {
	dst, out := grow(dst, 2)
	r.fillAlnum(out)
	return dst
}

// AppendPermutation fills dst[:n] with a uniform random permutation of
// 1..n (Fisher-Yates), for O_C_ID at load (clause 4.3.3.1).
func (r *Rand) AppendPermutation(dst []int32, n int) []int32 {
	dst = dst[:0]
	for i := 1; i <= n; i++ {
		dst = append(dst, int32(i))
	}
	for i := n - 1; i > 0; i-- {
		j := r.r.IntN(i + 1)
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

// syllables of C_LAST, clause 4.3.2.3, indexed by digit.
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// AppendLastName appends the C_LAST for num in [0, 999]: the syllables of
// its three decimal digits (clause 4.3.2.3), e.g. 371 -> PRICALLYOUGHT.
func AppendLastName(dst []byte, num int) []byte {
	dst = append(dst, syllables[num/100]...)
	dst = append(dst, syllables[(num/10)%10]...)
	return append(dst, syllables[num%10]...)
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
