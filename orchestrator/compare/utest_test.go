package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Known values, derived by hand (counting arrangements) and matching
// SciPy's documented example of scipy.stats.mannwhitneyu.
func TestMannWhitneyKnownValues(t *testing.T) {
	cases := []struct {
		name  string
		x, y  []float64
		u, p  float64
		exact bool
	}{
		// Fully separated 3+3: 1 arrangement of C(6,3)=20 per tail, p = 2/20.
		// This is why 3 repeats a side can never be significant at 0.05.
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		// 4+4: 2/C(8,4) = 2/70, the smallest n for significance at 0.05.
		{"separated 4+4", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 0, 2.0 / 70, true},
		{"separated 5+5", []float64{10, 20, 30, 40, 50}, []float64{1, 2, 3, 4, 5}, 25, 2.0 / 252, true},
		// SciPy's example (males vs females): U1 = 17, U2 = 3; partitions
		// of 0..3 into at most 4 parts ≤ 5 number 1+1+2+3 = 7 of C(9,4) =
		// 126, so p = 14/126.
		{"scipy example", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 14.0 / 126, true},
		// Interleaved symmetric: U1 = U2 → p = 1.
		{"balanced", []float64{1, 4}, []float64{2, 3}, 2, 1, true},
		// Ties, exact: x={1,2,2}, y={2,3,3}. Mid-ranks 1, 3,3,3, 5.5,5.5;
		// R1 = 7, U1 = 1. Of the 20 subsets, those with rank sum ≤ 7:
		// {1,3,3} ×3 = 7 → P(U ≤ 1) = 3/20, p = 6/20.
		{"ties exact", []float64{1, 2, 2}, []float64{2, 3, 3}, 1, 0.3, true},
	}
	for _, c := range cases {
		got, ok := MannWhitney(c.x, c.y)
		if !ok || got.U != c.u || !near(got.P, c.p, 1e-12) || got.Exact != c.exact {
			t.Errorf("%s: got %+v ok=%v, want U=%v p=%v exact=%v", c.name, got, ok, c.u, c.p, c.exact)
		}
	}
}

// The normal approximation, checked against SciPy's documented asymptotic
// p-value of the same example (method="asymptotic", use_continuity=True:
// 0.11134688653314041), and its tie correction against a hand count.
// go-moremath's exact limits are set to 0 for the test so that these small
// samples take the approximation.
func TestNormalPKnownValues(t *testing.T) {
	defer func(e, te int) { stats.MannWhitneyExactLimit, stats.MannWhitneyTiesExactLimit = e, te }(stats.MannWhitneyExactLimit, stats.MannWhitneyTiesExactLimit)
	stats.MannWhitneyExactLimit, stats.MannWhitneyTiesExactLimit = 0, 0
	if r, _ := MannWhitney([]float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}); !near(r.P, 0.11134688653314041, 1e-12) {
		t.Errorf("SciPy example: p = %v", r.P)
	}
	// U at the mean (within the continuity half unit): p = 1. U1 = 10.5
	// of 5·4/2 = 10.
	if r, _ := MannWhitney([]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 7}); r.U != 10.5 || r.P != 1 {
		t.Errorf("U at the mean: %+v", r)
	}
	// One tie group of 3 among N = 6, n1 = n2 = 3: variance 9/12·(7 −
	// 24/30) = 4.65, U = 0: z = 4/√4.65.
	want := math.Erfc(4 / math.Sqrt(4.65) / math.Sqrt2)
	if r, _ := MannWhitney([]float64{1, 1, 1}, []float64{2, 3, 4}); r.U != 0 || !near(r.P, want, 1e-12) {
		t.Errorf("tie correction: %+v, want p = %v", r, want)
	}
}

func TestMannWhitneyApproximationPath(t *testing.T) {
	// 60+60 separated: beyond the exact limit. z = (1800-0.5)/sd.
	var x, y []float64
	for i := range 60 {
		x, y = append(x, float64(i)), append(y, float64(100+i))
	}
	got, ok := MannWhitney(x, y)
	if !ok || got.Exact || got.U != 0 || got.P > 1e-15 {
		t.Errorf("60+60 separated: %+v", got)
	}
	// 26+26 with ties: beyond the ties limit; all tie groups of 2.
	x, y = nil, nil
	for i := range 26 {
		x, y = append(x, float64(i/2)), append(y, float64(i/2)+0.25)
	}
	got, ok = MannWhitney(x, y)
	if !ok || got.Exact {
		t.Fatalf("26+26 with ties should use the approximation: %+v", got)
	}
	// Independent computation: U1, tie groups and the formula.
	var u float64
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
		}
	}
	N := 52.0
	tie := 13.0 * (8 - 2) // 13 groups of 2 in x (y's values are all distinct from x's and pairs too)
	tie *= 2
	sd := math.Sqrt(26 * 26 / 12.0 * ((N + 1) - tie/(N*(N-1))))
	z := (math.Abs(u-26*26/2.0) - 0.5) / sd
	if want := math.Erfc(z / math.Sqrt2); got.U != u || !near(got.P, want, 1e-12) {
		t.Errorf("26+26 ties: got U=%v p=%v, want U=%v p=%v", got.U, got.P, u, want)
	}
}

func TestMannWhitneyNothingToTest(t *testing.T) {
	for _, c := range [][2][]float64{{nil, {1}}, {{1}, nil}, {{2, 2}, {2, 2, 2}}} {
		if _, ok := MannWhitney(c[0], c[1]); ok {
			t.Errorf("MannWhitney(%v, %v) reported a test", c[0], c[1])
		}
	}
}

// Properties over random samples: p in (0, 1]; symmetric in its
// arguments when there are no ties (with ties benchstat's 2·CDF(min(U1,
// U2)) depends on the order, see utest.go); invariant under a monotone
// transform (it sees only ranks); U1 + U2 = n1·n2; and the exact p equals
// brute-force enumeration of benchstat's definition, ties included.
func TestMannWhitneyProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		n1, n2 := 1+rng.IntN(7), 1+rng.IntN(7)
		x, y := make([]float64, n1), make([]float64, n2)
		for i := range x {
			x[i] = float64(rng.IntN(6)) // small range: many ties
		}
		for i := range y {
			y[i] = float64(rng.IntN(6) + rng.IntN(2))
		}
		a, ok := MannWhitney(x, y)
		if !ok {
			continue
		}
		b, _ := MannWhitney(y, x)
		if a.P <= 0 || a.P > 1 || (!hasTies(x, y) && !near(a.P, b.P, 1e-12)) || !near(a.U+b.U, float64(n1*n2), 1e-12) {
			t.Fatalf("iter %d: x=%v y=%v: %+v vs %+v", iter, x, y, a, b)
		}
		ex, ey := make([]float64, n1), make([]float64, n2)
		for i := range x {
			ex[i] = math.Exp(x[i])
		}
		for i := range y {
			ey[i] = math.Exp(y[i])
		}
		if c, _ := MannWhitney(ex, ey); !near(c.P, a.P, 1e-12) {
			t.Fatalf("iter %d: not rank-invariant: %v vs %v", iter, c.P, a.P)
		}
		if want := bruteP(x, y); want > 0 && !near(a.P, want, 1e-12) {
			t.Fatalf("iter %d: x=%v y=%v: p=%v, enumeration says %v", iter, x, y, a.P, want)
		}
	}
}

// bruteP enumerates every assignment of the pooled values to the first
// sample, computing U pair by pair, and returns benchstat's two-sided p:
// 2·P(U1 ≤ min(U1, U2)) at the observed U1, U2, or 1 when U1 = U2; capped
// at 1 as MannWhitney caps it. When min(U1, U2) = U2 lies below every
// value U1 can take (ties, fully separated: x = {3, 3}, y = {0, 0, 0})
// this is 0; go-moremath's tie distribution then answers something else
// (0.6 there, against the textbook 0.2), and callers skip the comparison:
// compare reports benchstat's number.
func bruteP(x, y []float64) float64 {
	p, _ := bruteTails(x, y)
	return p
}

// bruteTails returns benchstat's p (bruteP) and the textbook one, twice
// the smaller tail at the observed U1 (min(P(U1 ≤ u), P(U1 ≥ u))), which
// compare reported before it used benchmath. They differ only with ties.
func bruteTails(x, y []float64) (benchstat, textbook float64) {
	pool := append(append([]float64(nil), x...), y...)
	n1, N := len(x), len(pool)
	u := func(mask int) float64 {
		var s float64
		for i := range N {
			if mask&(1<<i) == 0 {
				continue
			}
			for j := range N {
				if mask&(1<<j) != 0 {
					continue
				}
				if pool[i] > pool[j] {
					s++
				} else if pool[i] == pool[j] {
					s += 0.5
				}
			}
		}
		return s
	}
	obs := u(1<<n1 - 1)
	small := math.Min(obs, float64(n1*len(y))-obs)
	if obs == float64(n1*len(y))-obs {
		return 1, 1
	}
	var lo, hi, sm, total float64
	for mask := 0; mask < 1<<N; mask++ {
		if popcount(mask) != n1 {
			continue
		}
		total++
		v := u(mask)
		if v <= obs+1e-9 {
			lo++
		}
		if v >= obs-1e-9 {
			hi++
		}
		if v <= small+1e-9 {
			sm++
		}
	}
	return math.Min(1, 2*sm/total), math.Min(1, 2*math.Min(lo, hi)/total)
}

func hasTies(x, y []float64) bool {
	seen := map[float64]bool{}
	for _, v := range append(append([]float64(nil), x...), y...) {
		if seen[v] {
			return true
		}
		seen[v] = true
	}
	return false
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// The exact distribution of 25+25 values counts all C(50, 25) subsets:
// fully separated samples get 2/C(50, 25).
func TestExactLargestNoTies(t *testing.T) {
	var x, y []float64
	for i := range 25 {
		x, y = append(x, float64(i)), append(y, float64(100+i))
	}
	r, ok := MannWhitney(x, y)
	if want := 2 / 126410606437752.0; !ok || !r.Exact || !near(r.P/want, 1, 1e-9) { // C(50, 25)
		t.Errorf("25+25 separated: %+v, want p = %v", r, want)
	}
}

// The exact distribution and the normal approximation agree closely for
// moderate samples without ties.
func TestExactNearNormal(t *testing.T) {
	var x, y []float64
	for i := range 20 {
		x = append(x, float64(2*i))
		y = append(y, float64(2*i+7))
	}
	e, _ := MannWhitney(x, y)
	N, n := 40.0, 20.0
	z := (math.Abs(e.U-n*n/2) - 0.5) / math.Sqrt(n*n/12*(N+1))
	if a := math.Erfc(z / math.Sqrt2); !e.Exact || !near(e.P, a, 0.01) {
		t.Errorf("20+20: exact %v, normal %v", e.P, a)
	}
}

// compare's test is benchmath's: the same samples fed to
// benchmath.AssumeNothing directly and to MannWhitney (and through
// Compare's verdict) give the identical p-value and verdict, for samples
// with and without ties, on both of go-moremath's paths (exact and
// normal), in both orders.
func TestMannWhitneyIsBenchstat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type pair struct{ x, y []float64 }
	var cases []pair
	for range 200 {
		n1, n2 := 2+rng.IntN(30), 2+rng.IntN(30)
		x, y := make([]float64, n1), make([]float64, n2)
		levels := 4 + rng.IntN(200) // few levels: ties; many: usually none
		shift := rng.IntN(levels / 2)
		for i := range x {
			x[i] = float64(rng.IntN(levels))
		}
		for i := range y {
			y[i] = float64(rng.IntN(levels) + shift)
		}
		cases = append(cases, pair{x, y}, pair{y, x})
	}
	// The three-runs golden's newOrder p50, where the tie makes the
	// order matter.
	cases = append(cases, pair{[]float64{4.2, 4.368, 4.074, 4.284}, []float64{4.2, 4.62, 3.99}})
	var exact, normal, ties, over, under int
	for _, c := range cases {
		got, ok := MannWhitney(c.x, c.y)
		want := benchmath.AssumeNothing.Compare(
			benchmath.NewSample(slices.Clone(c.x), &benchmath.DefaultThresholds),
			benchmath.NewSample(slices.Clone(c.y), &benchmath.DefaultThresholds))
		if !ok {
			if want.P != 1 || len(want.Warnings) == 0 {
				t.Errorf("x=%v y=%v: nothing to test, benchmath says %v", c.x, c.y, want)
			}
			continue
		}
		switch {
		case want.P > 1:
			over++ // benchstat's 2·CDF past 1 with ties; reported as 1
			want.P = 1
		case got.Exact && want.P < MinP(len(c.x), len(c.y)):
			under++ // below any permutation test's reach; reported as MinP
			want.P = MinP(len(c.x), len(c.y))
		}
		if got.P != want.P || (got.P < Alpha) != (want.P < want.Alpha) || Alpha != want.Alpha {
			t.Errorf("x=%v y=%v: p=%v, benchmath p=%v (alpha %v)", c.x, c.y, got.P, want.P, want.Alpha)
		}
		if got.Exact {
			exact++
		} else {
			normal++
		}
		if hasTies(c.x, c.y) {
			ties++
		}
	}
	if exact == 0 || normal == 0 || ties == 0 || ties == len(cases) {
		t.Errorf("cases do not cover both paths and ties: exact %d, normal %d, ties %d of %d", exact, normal, ties, len(cases))
	}
	t.Logf("%d cases: exact %d, normal %d, with ties %d, benchstat p > 1 (capped) %d, p < MinP (raised) %d", len(cases), exact, normal, ties, over, under)
	// Benchstat's p past 1, capped.
	if r, _ := MannWhitney([]float64{0, 1, 3}, []float64{0, 1, 1, 1, 1, 2, 3}); r.P != 1 {
		t.Errorf("p = %v, want benchstat's 1.133 capped at 1", r.P)
	}
	// Benchstat's p = 0 for 3+2 fully separated values with a tie in
	// one sample, raised to MinP(3, 2) = 0.2: not significant.
	x, y := []float64{3, 4, 3}, []float64{1, 2}
	raw := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(slices.Clone(x), &benchmath.DefaultThresholds),
		benchmath.NewSample(slices.Clone(y), &benchmath.DefaultThresholds))
	if r, _ := MannWhitney(x, y); raw.P != 0 || !near(r.P, 0.2, 1e-12) {
		t.Errorf("benchmath p = %v (want its 0), compare p = %v, want 0.2", raw.P, r.P)
	}
	// The verdict Compare writes is that p against Alpha.
	c, err := Compare(load(t, "runA", "three")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Groups[0].Metrics {
		b, v := m.Values[0], m.Values[1]
		d := m.Deltas[0]
		if !d.Tested {
			continue
		}
		want := benchmath.AssumeNothing.Compare(
			benchmath.NewSample(slices.Clone(b.Samples), &benchmath.DefaultThresholds),
			benchmath.NewSample(slices.Clone(v.Samples), &benchmath.DefaultThresholds))
		if *d.P != want.P || d.Significant != (want.P < want.Alpha) {
			t.Errorf("%s %s: p=%v significant=%v, benchmath p=%v", m.Operation, m.Name, *d.P, d.Significant, want.P)
		}
	}
}

// The one place the textbook two-sided p (twice the smaller tail at the
// observed U, which compare computed before) and benchstat's differ: ties
// with an asymmetric exact distribution. The three-runs golden's newOrder
// p50 moved from 0.971 to benchstat's 0.914.
func TestBenchstatVersusTextbookWithTies(t *testing.T) {
	x, y := []float64{4.2, 4.368, 4.074, 4.284}, []float64{4.2, 4.62, 3.99}
	bs, tb := bruteTails(x, y)
	got, _ := MannWhitney(x, y)
	if !near(got.P, bs, 1e-12) || !near(bs, 32.0/35, 1e-12) || !near(tb, 34.0/35, 1e-12) {
		t.Errorf("p=%v, benchstat's by enumeration %v (want 32/35), textbook %v (want 34/35)", got.P, bs, tb)
	}
}
