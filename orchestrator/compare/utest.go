package compare

import (
	"slices"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// The Mann-Whitney U test (H. B. Mann and D. R. Whitney, "On a test of
// whether one of two random variables is stochastically larger than the
// other", Annals of Mathematical Statistics 18(1), 1947), two-sided, is
// benchstat's own: golang.org/x/perf/benchmath's AssumeNothing, which
// calls go-moremath's MannWhitneyUTest. compare therefore agrees with
// benchstat by construction, ties included (utest_test.go feeds the same
// samples to both). What that test does:
//
//   - ranks are mid-ranks (tied values share the mean of their ranks);
//   - the p-value is exact, from the permutation distribution of U, while
//     both samples have at most 50 values (25 when there are ties);
//   - beyond them it is the normal approximation with tie and continuity
//     corrections (Lehmann, Nonparametrics, 1975, §1.4);
//   - two-sided, p is 2·CDF(min(U1, U2)), or 1 when U1 = U2. With ties
//     the exact distribution is not symmetric, so this can depend on
//     which sample is named first; compare always names the first run
//     first, as benchstat names the old one first. With heavy ties
//     2·CDF(min(U1, U2)) can exceed 1 (x = {0, 1, 3}, y = {0, 1, 1, 1,
//     1, 2, 3}: 1.133); a probability cannot, and compare's schema says
//     p ≤ 1, so such a p is reported as 1 (the verdict is the same: not
//     significant).
//   - With ties, when min(U1, U2) = U2 lies below every value U1 can take,
//     go-moremath's tie distribution answers P(U1 ≤ U2) = 0: x = {3, 3,
//     4}, y = {1, 2} gets p = 0, "significant", from 3+2 repeats that no
//     exact test can call significant (2/C(5, 2) = 0.2 at best). No
//     permutation test of n1+n2 values gives less than MinP(n1, n2), so
//     an exact p below it is reported as MinP (here 0.2, the textbook
//     value).
//
// Every other p is benchmath's, bit for bit.

// UTest is the outcome of a two-sided Mann-Whitney U test.
type UTest struct {
	N1, N2 int
	U      float64 // U of the first sample: the number of (x, y) pairs with x > y, ties counting ½
	P      float64 // two-sided p-value
	Exact  bool    // P is from the exact distribution, not the normal approximation
}

// MannWhitney tests whether x and y come from distributions with the same
// location. ok is false when there is nothing to test: a sample is empty,
// or every value of both samples is equal (benchmath then reports p = 1
// with an error as a warning).
func MannWhitney(x, y []float64) (UTest, bool) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{}, false
	}
	// benchmath.NewSample sorts in place: the callers' samples are the
	// report's, in run order.
	sx, sy := slices.Clone(x), slices.Clone(y)
	slices.Sort(sx)
	slices.Sort(sy)
	if sx[0] == sx[n1-1] && sy[0] == sy[n2-1] && sx[0] == sy[0] {
		return UTest{}, false
	}
	c := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(sx, &benchmath.DefaultThresholds),
		benchmath.NewSample(sy, &benchmath.DefaultThresholds))
	t := UTest{N1: n1, N2: n2, P: min(c.P, 1)}
	// U1 and whether there are ties, for the report and for Exact (which
	// of go-moremath's two paths gave P).
	ties := false
	for i, a := range sx {
		if i > 0 && a == sx[i-1] {
			ties = true
		}
		for _, b := range sy {
			switch {
			case a > b:
				t.U++
			case a == b:
				t.U += 0.5
				ties = true
			}
		}
	}
	for i := 1; i < n2 && !ties; i++ {
		ties = sy[i] == sy[i-1]
	}
	// go-moremath's own limits (50, or 25 with ties), which benchmath's
	// Comparison does not report.
	limit := stats.MannWhitneyExactLimit
	if ties {
		limit = stats.MannWhitneyTiesExactLimit
	}
	t.Exact = n1 <= limit && n2 <= limit
	if t.Exact {
		t.P = max(t.P, MinP(n1, n2))
	}
	return t, true
}
