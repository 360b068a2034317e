package tpcc

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestIntInclusive(t *testing.T) {
	r := NewRand(1, 1)
	for _, tc := range []struct{ lo, hi int }{{0, 0}, {1, 10}, {5, 15}, {-3, 3}, {0, 255}} {
		seen := map[int]bool{}
		for i := 0; i < 20000; i++ {
			v := r.Int(tc.lo, tc.hi)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("Int(%d,%d) = %d out of range", tc.lo, tc.hi, v)
			}
			seen[v] = true
		}
		if len(seen) != tc.hi-tc.lo+1 {
			t.Errorf("Int(%d,%d) hit %d distinct values, want all %d (both ends inclusive)", tc.lo, tc.hi, len(seen), tc.hi-tc.lo+1)
		}
	}
}

// nurandRef is clause 2.1.6 written out literally, to compare against.
func nurandRef(ra, rxy, c, x, y int) int { return (((ra | rxy) + c) % (y - x + 1)) + x }

func TestNURand(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, x, y int
	}{
		{"C_LAST", 255, 0, 999},
		{"C_ID", 1023, 1, 3000},
		{"OL_I_ID", 8191, 1, 100000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []int{0, 1, tc.a / 2, tc.a} {
				r := NewRand(7, uint64(c))
				ref := NewRand(7, uint64(c))
				counts := map[int]int{}
				const n = 200000
				for i := 0; i < n; i++ {
					v := r.NURand(tc.a, tc.x, tc.y, c)
					// Same stream, same draws in the same order.
					ra := ref.Int(0, tc.a)
					rxy := ref.Int(tc.x, tc.y)
					if want := nurandRef(ra, rxy, c, tc.x, tc.y); v != want {
						t.Fatalf("NURand(%d,%d,%d,C=%d) = %d, formula gives %d", tc.a, tc.x, tc.y, c, v, want)
					}
					if v < tc.x || v > tc.y {
						t.Fatalf("NURand out of [%d,%d]: %d", tc.x, tc.y, v)
					}
					counts[v]++
				}
				// Non-uniform: the most frequent value must be well above
				// the uniform expectation (the point of NURand).
				maxc := 0
				for _, k := range counts {
					maxc = max(maxc, k)
				}
				uniform := float64(n) / float64(tc.y-tc.x+1)
				if float64(maxc) < 3*uniform {
					t.Errorf("C=%d: most frequent value drawn %d times, uniform expectation %.1f: not skewed", c, maxc, uniform)
				}
			}
		})
	}
}

func TestLastName(t *testing.T) {
	for _, tc := range []struct {
		num  int
		want string
	}{
		{0, "BARBARBAR"},
		{371, "PRICALLYOUGHT"}, // clause 4.3.2.3's example
		{40, "BARPRESBAR"},
		{999, "EINGEINGEING"},
		{777, "CALLYCALLYCALLY"}, // longest: 15 fits VARCHAR(16)
		{123, "OUGHTABLEPRI"},
	} {
		if got := LastName(tc.num); got != tc.want {
			t.Errorf("LastName(%d) = %q, want %q", tc.num, got, tc.want)
		}
	}
	for n := 0; n < 1000; n++ {
		if l := len(LastName(n)); l > 16 {
			t.Errorf("LastName(%d) has %d characters > 16", n, l)
		}
	}
}

func TestValidCDelta(t *testing.T) {
	for _, tc := range []struct {
		load, run int
		ok        bool
	}{
		{0, 64, false}, {0, 65, true}, {0, 119, true}, {0, 120, false},
		{200, 104, false}, // delta 96 excluded
		{200, 88, false},  // delta 112 excluded
		{200, 95, true},   // delta 105
		{100, 35, true}, {100, 165, true}, {100, 100, false},
	} {
		if got := ValidCDelta(tc.load, tc.run); got != tc.ok {
			t.Errorf("ValidCDelta(%d, %d) = %v, want %v", tc.load, tc.run, got, tc.ok)
		}
	}
}

func TestRunConstants(t *testing.T) {
	r := NewRand(3, 3)
	for cLoad := 0; cLoad <= 255; cLoad++ {
		load := Constants{CLast: cLoad, CID: 5, OLIID: 6}
		seen := map[int]bool{}
		for i := 0; i < 50; i++ {
			run := NewRunConstants(r, load)
			if !ValidCDelta(cLoad, run.CLast) {
				t.Fatalf("C-Load %d: C-Run %d has invalid delta %d (clause 2.1.6.1)", cLoad, run.CLast, cLoad-run.CLast)
			}
			if run.CLast < 0 || run.CLast > 255 || run.CID < 0 || run.CID > 1023 || run.OLIID < 0 || run.OLIID > 8191 {
				t.Fatalf("run constants out of [0,A]: %+v", run)
			}
			seen[run.CLast] = true
		}
		if len(seen) < 5 {
			t.Errorf("C-Load %d: C-Run took only %d distinct values in 50 draws: not random", cLoad, len(seen))
		}
	}
}

func TestLoadConstantsRanges(t *testing.T) {
	r := NewRand(9, 9)
	var maxes Constants
	for i := 0; i < 20000; i++ {
		c := NewLoadConstants(r)
		if c.CLast < 0 || c.CLast > 255 || c.CID < 0 || c.CID > 1023 || c.OLIID < 0 || c.OLIID > 8191 {
			t.Fatalf("load constants out of [0,A]: %+v", c)
		}
		maxes.CLast, maxes.CID, maxes.OLIID = max(maxes.CLast, c.CLast), max(maxes.CID, c.CID), max(maxes.OLIID, c.OLIID)
	}
	// Catches the swapped ranges of other drivers (C_ID drawn in [0,8191]).
	if maxes != (Constants{255, 1023, 8191}) {
		t.Errorf("maximum constants drawn %+v, want {255 1023 8191}", maxes)
	}
}

// chiSquare returns Pearson's statistic of counts against a uniform
// expectation over k cells (cells absent from counts count as 0).
func chiSquare(counts map[int]int, k, n int) float64 {
	e := float64(n) / float64(k)
	x := 0.0
	for c := 0; c < k; c++ {
		d := float64(counts[c]) - e
		x += d * d / e
	}
	return x
}

// chiLimit is a bound the statistic of a uniform sample over k cells
// exceeds with probability well under 1e-6 (mean k-1, sd sqrt(2(k-1));
// 6 sd plus a margin for the skew of small k): a correct generator
// does not fail it, a biased one (a character drawn 25% too often,
// rejection done wrong) does at these sample sizes.
func chiLimit(k int) float64 {
	df := float64(k - 1)
	return df + 6*math.Sqrt(2*df) + 10
}

func TestStrings(t *testing.T) {
	r := newLoadRand(1, 2)
	lens := map[int]int{}
	const n = 20000
	for i := 0; i < n; i++ {
		s := r.AppendAString(nil, 8, 16)
		lens[len(s)-8]++
		for _, ch := range s {
			if !strings.ContainsRune(alnum, rune(ch)) {
				t.Fatalf("a-string %q has %q outside the alphabet", s, ch)
			}
		}
		ns := string(r.AppendNString(nil, 16, 16))
		if len(ns) != 16 || strings.Trim(ns, "0123456789") != "" {
			t.Fatalf("n-string %q", ns)
		}
		if z := string(r.AppendZip(nil)); len(z) != 9 || strings.Trim(z[:4], "0123456789") != "" || z[4:] != "11111" {
			t.Fatalf("zip %q (clause 4.3.2.7: 4 random digits, then 11111)", z)
		}
		if st := r.AppendState(nil); len(st) != 2 || strings.Trim(string(st), alnum) != "" {
			t.Fatalf("state %q", st)
		}
	}
	// Lengths uniform over [8, 16] (clause 4.3.2.2: mean (x+y)/2).
	if x := chiSquare(lens, 9, n); x > chiLimit(9) {
		t.Errorf("a-string lengths %v: chi-square %.1f > %.1f, not uniform over [8,16]", lens, x, chiLimit(9))
	}
	if got := r.AppendAString(nil, 24, 24); len(got) != 24 {
		t.Errorf("AppendAString(24, 24) gave %d characters", len(got))
	}
	// Every character of the alphabet, evenly; and every pair of
	// neighbours, evenly (characters come two per table read, and four
	// from each 32-bit half of a draw: pairs across those seams too).
	// A string longer than the pool checks its refills.
	s := r.AppendAString(nil, 2_000_000, 2_000_000)
	single, pairs := map[int]int{}, map[int]int{}
	for i, ch := range s {
		c := strings.IndexByte(alnum, ch)
		single[c]++
		if i > 0 {
			pairs[strings.IndexByte(alnum, s[i-1])*62+c]++
		}
	}
	if x := chiSquare(single, 62, len(s)); x > chiLimit(62) {
		t.Errorf("characters: chi-square %.1f > %.1f over 62", x, chiLimit(62))
	}
	if x := chiSquare(pairs, 62*62, len(s)-1); x > chiLimit(62*62) {
		t.Errorf("neighbouring pairs: chi-square %.1f > %.1f over 3844", x, chiLimit(62*62))
	}
	digits := map[int]int{}
	d := r.appendDigits(nil, 1_000_000)
	for _, ch := range d {
		digits[int(ch-'0')]++
	}
	if x := chiSquare(digits, 10, len(d)); x > chiLimit(10) {
		t.Errorf("digits %v: chi-square %.1f > %.1f", digits, x, chiLimit(10))
	}
}

// TestLoadRandInt: Int is inclusive at both ends and uniform; NURand
// stays in range and is skewed.
func TestLoadRandInt(t *testing.T) {
	r := newLoadRand(3, 4)
	for _, tc := range []struct{ lo, hi int }{{0, 0}, {1, 10}, {5, 15}, {0, 255}, {1, 100000}} {
		counts := map[int]int{}
		const n = 200000
		for i := 0; i < n; i++ {
			v := r.Int(tc.lo, tc.hi)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("Int(%d,%d) = %d out of range", tc.lo, tc.hi, v)
			}
			counts[v-tc.lo]++
		}
		k := tc.hi - tc.lo + 1
		if k <= 256 {
			if len(counts) != k {
				t.Errorf("Int(%d,%d) hit %d distinct values, want all %d", tc.lo, tc.hi, len(counts), k)
			}
			if x := chiSquare(counts, k, n); x > chiLimit(k) {
				t.Errorf("Int(%d,%d): chi-square %.1f > %.1f", tc.lo, tc.hi, x, chiLimit(k))
			}
		}
	}
	counts := map[int]int{}
	for i := 0; i < 100000; i++ {
		v := r.NURand(aCLast, 0, 999, 117)
		if v < 0 || v > 999 {
			t.Fatalf("NURand(255, 0, 999) = %d", v)
		}
		counts[v]++
	}
	maxc := 0
	for _, c := range counts {
		maxc = max(maxc, c)
	}
	if maxc < 3*100 {
		t.Errorf("most frequent C_LAST number drawn %d times of 100,000 (uniform: 100): not NURand", maxc)
	}
}

func TestAppendData(t *testing.T) {
	r := newLoadRand(5, 5)
	orig := 0
	const n = 50000
	lens := map[int]int{}
	for i := 0; i < n; i++ {
		b := r.AppendData(nil, 26, 50)
		if len(b) < 26 || len(b) > 50 {
			t.Fatalf("data length %d not in [26,50]", len(b))
		}
		lens[len(b)-26]++
		if strings.Contains(string(b), "ORIGINAL") {
			orig++
		}
	}
	// 10% (clause 4.3.3.1), allowing sampling noise (sd ~ 0.13%).
	if frac := float64(orig) / n; frac < 0.095 || frac > 0.105 {
		t.Errorf("ORIGINAL in %.2f%% of rows, want 10%%", 100*frac)
	}
	if x := chiSquare(lens, 25, n); x > chiLimit(25) {
		t.Errorf("data lengths: chi-square %.1f > %.1f, not uniform over [26,50]", x, chiLimit(25))
	}
}

// TestLoadRandDeterministic: same (seed, stream), same strings; another
// stream, others.
func TestLoadRandDeterministic(t *testing.T) {
	draw := func(seed, stream uint64) string {
		r := newLoadRand(seed, stream)
		var b []byte
		for i := 0; i < 3000; i++ {
			b = r.AppendData(b, 26, 50)
			b = r.AppendNString(b, 16, 16)
			b = strconv.AppendInt(b, int64(r.Int(1, 100000)), 10)
		}
		return string(b)
	}
	a := draw(42, 7)
	if a != draw(42, 7) {
		t.Error("same (seed, stream) gave different strings")
	}
	if a == draw(42, 8) || a == draw(43, 7) {
		t.Error("another seed or stream gave the same strings")
	}
}

func TestPermutation(t *testing.T) {
	r := newLoadRand(1, 1)
	p := r.AppendPermutation(nil, 3000)
	seen := make([]bool, 3001)
	fixed := 0
	for i, v := range p {
		if v < 1 || v > 3000 || seen[v] {
			t.Fatalf("not a permutation of 1..3000 at %d: %d", i, v)
		}
		seen[v] = true
		if int(v) == i+1 {
			fixed++
		}
	}
	if fixed > 10 {
		t.Errorf("%d fixed points: not shuffled", fixed)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := NewRand(42, 7), NewRand(42, 7)
	c := NewRand(42, 8)
	same, diff := true, false
	for i := 0; i < 100; i++ {
		x, y, z := a.Int(0, 1<<30), b.Int(0, 1<<30), c.Int(0, 1<<30)
		same = same && x == y
		diff = diff || x != z
	}
	if !same || !diff {
		t.Errorf("same (seed, stream) must repeat (%v), another stream must differ (%v)", same, diff)
	}
}
