package compare

import (
	"math"
	"math/rand/v2"
	"testing"
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
func TestNormalPKnownValues(t *testing.T) {
	if p := normalP(17, 5, 4, []int{1, 1, 1, 1, 1, 1, 1, 1, 1}); !near(p, 0.11134688653314041, 1e-12) {
		t.Errorf("SciPy example: p = %v", p)
	}
	// U at the mean (within the continuity half unit): p = 1.
	if p := normalP(10.5, 5, 4, nil); p != 1 {
		t.Errorf("U at the mean: p = %v", p)
	}
	// One tie group of 3 among N = 6, n1 = n2 = 3: variance 9/12·(7 −
	// 24/30) = 4.65, U = 0: z = 4/√4.65.
	want := math.Erfc(4 / math.Sqrt(4.65) / math.Sqrt2)
	if p := normalP(0, 3, 3, []int{3, 1, 1, 1}); !near(p, want, 1e-12) {
		t.Errorf("tie correction: p = %v, want %v", p, want)
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
// arguments; invariant under a monotone transform (it sees only ranks);
// U1 + U2 = n1·n2; the exact distribution is a distribution of C(N, n1)
// subsets; and exact and brute-force enumeration agree, ties included.
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
		if a.P <= 0 || a.P > 1 || !near(a.P, b.P, 1e-12) || !near(a.U+b.U, float64(n1*n2), 1e-12) {
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
		if want := bruteP(x, y); !near(a.P, want, 1e-12) {
			t.Fatalf("iter %d: x=%v y=%v: p=%v, enumeration says %v", iter, x, y, a.P, want)
		}
	}
}

// bruteP enumerates every assignment of the pooled values to the first
// sample, computing U pair by pair, and doubles the smaller tail at the
// observed U.
func bruteP(x, y []float64) float64 {
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
	if obs == float64(n1*len(y))-obs {
		return 1
	}
	var lo, hi, total float64
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
	}
	return math.Min(1, 2*math.Min(lo, hi)/total)
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

func TestRankSumCountsTotal(t *testing.T) {
	rank2 := make([]int, 50)
	for i := range rank2 {
		rank2[i] = 2 * (i + 1)
	}
	var total float64
	for _, c := range rankSumCounts(rank2, 25) {
		total += c
	}
	if total != 126410606437752 { // C(50, 25)
		t.Errorf("C(50,25) subsets counted as %v", total)
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
