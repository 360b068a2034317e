package compare

import (
	"math"
	"slices"
)

// The Mann-Whitney U test (H. B. Mann and D. R. Whitney, "On a test of
// whether one of two random variables is stochastically larger than the
// other", Annals of Mathematical Statistics 18(1), 1947), two-sided, as
// Go's benchstat applies it to benchmark repeats (golang.org/x/perf,
// internal/stats: MannWhitneyUTest):
//
//   - ranks are mid-ranks (tied values share the mean of their ranks);
//   - the p-value is exact, from the permutation distribution of U, while
//     both samples have at most 50 values (25 when there are ties), the
//     same limits as benchstat's MannWhitneyExactLimit and
//     MannWhitneyTiesExactLimit;
//   - beyond them it is the normal approximation with tie correction and
//     continuity correction: mean n1·n2/2, variance
//     n1·n2/12 · ((N+1) − Σ(t³−t)/(N(N−1))) over the tie groups t
//     (Lehmann, Nonparametrics, 1975, §1.4).
//
// The exact distribution under ties is computed by counting, for every
// subset of n1 of the N mid-ranks, its rank sum (a subset-sum count over
// doubled mid-ranks, which are integers): the distribution Klotz (1966)
// tabulated and benchstat's UDist computes, by a simpler O(N·n1·ΣR) route
// that is small at these limits (under 10⁷ steps).

// Exact limits, as in benchstat.
const (
	exactLimit     = 50
	tiesExactLimit = 25
)

// UTest is the outcome of a two-sided Mann-Whitney U test.
type UTest struct {
	N1, N2 int
	U      float64 // U of the first sample: the number of (x, y) pairs with x > y, ties counting ½
	P      float64 // two-sided p-value
	Exact  bool    // P is from the exact distribution, not the normal approximation
}

// MannWhitney tests whether x and y come from distributions with the same
// location. ok is false when there is nothing to test: a sample is empty,
// or every value of both samples is equal.
func MannWhitney(x, y []float64) (UTest, bool) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{}, false
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(a, b obs) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	// rank2[i] is twice the mid-rank of all[i]; ties holds the size of
	// every group of equal values.
	N := n1 + n2
	rank2 := make([]int, N)
	var ties []int
	r1x2 := 0 // twice the rank sum of x
	for i := 0; i < N; {
		j := i
		for j < N && all[j].v == all[i].v {
			j++
		}
		mid2 := (i + 1) + j // (first rank + last rank), ranks from 1
		for k := i; k < j; k++ {
			rank2[k] = mid2
			if all[k].first {
				r1x2 += mid2
			}
		}
		ties = append(ties, j-i)
		i = j
	}
	if len(ties) == 1 {
		return UTest{}, false
	}
	hasTies := len(ties) < N
	u2x := r1x2 - n1*(n1+1) // 2·U1
	t := UTest{N1: n1, N2: n2, U: float64(u2x) / 2}
	if (!hasTies && n1 <= exactLimit && n2 <= exactLimit) || (hasTies && n1 <= tiesExactLimit && n2 <= tiesExactLimit) {
		t.Exact = true
		t.P = exactP(rank2, n1, n2, u2x)
		return t, true
	}
	t.P = normalP(t.U, n1, n2, ties)
	return t, true
}

// normalP is the two-sided p-value of U1 = u by the normal approximation
// with tie and continuity corrections; ties lists the tie group sizes.
func normalP(u float64, n1, n2 int, ties []int) float64 {
	var tieSum float64
	for _, g := range ties {
		tieSum += float64(g*g*g - g)
	}
	N := float64(n1 + n2)
	mean := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) / 12 * ((N + 1) - tieSum/(N*(N-1))))
	// Continuity correction: half a unit towards the mean.
	z := math.Max(0, math.Abs(u-mean)-0.5) / sd
	return math.Min(1, math.Erfc(z/math.Sqrt2)) // 2·(1 − Φ(z))
}

// exactP is the two-sided exact p-value of 2·U1 = u2x: twice the smaller
// tail probability at the observed U (P(U ≤ u) or P(U ≥ u)), capped at 1;
// exactly 1 when U1 = U2. Without ties this is benchstat's 2·CDF(min(U1,
// U2)), the distribution being symmetric about n1·n2/2. With ties it is
// not symmetric, and benchstat's CDF at min(U1, U2) then depends on which
// sample is named first; the smaller tail at the observed U does not.
func exactP(rank2 []int, n1, n2, u2x int) float64 {
	if u2x == 2*n1*n2-u2x {
		return 1
	}
	dist := rankSumCounts(rank2, n1)
	// 2·U = 2·R1 − n1(n1+1): compare the rank sum with the observed one.
	obs := u2x + n1*(n1+1)
	var lo, hi, total float64
	for s, c := range dist {
		total += c
		if s <= obs {
			lo += c
		}
		if s >= obs {
			hi += c
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/total)
}

// rankSumCounts returns, for every value s, the number of n1-subsets of
// the (doubled) ranks whose sum is s. Counts reach C(50, 25) ≈ 1.3·10¹⁴,
// exact in a float64 (below 2⁵³).
func rankSumCounts(rank2 []int, n1 int) []float64 {
	maxSum := 0
	for _, r := range rank2 {
		maxSum += r
	}
	// ways[k][s]: subsets of size k of the ranks seen so far with sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	seen := 0
	for _, r := range rank2 {
		seen += r
		for k := min(n1, len(rank2)); k >= 1; k-- {
			row, prev := ways[k], ways[k-1]
			for s := seen; s >= r; s-- {
				row[s] += prev[s-r]
			}
		}
	}
	return ways[n1]
}
