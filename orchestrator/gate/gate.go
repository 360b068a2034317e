package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/compare"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/report"
)

// Thresholds are a run's pass criteria: the plan's thresholds section is
// this type (decoded strictly with the plan), and check-result's flags
// fill one. Zero values (and nil pointers) set no limit.
type Thresholds = plan.Thresholds

// LatencyLimit bounds one percentile of one transaction's latency.
type LatencyLimit = plan.LatencyLimit

// Percentiles are the latency figures a limit can name.
var Percentiles = plan.Percentiles

// ParseLatencyLimit reads a flag value "OP=DURATION" ("newOrder=50ms",
// "*=2s") for a percentile.
func ParseLatencyLimit(percentile, s string) (LatencyLimit, error) {
	if !slices.Contains(Percentiles, percentile) {
		return LatencyLimit{}, fmt.Errorf("unknown percentile %q (one of %s)", percentile, strings.Join(Percentiles, ", "))
	}
	op, d, ok := strings.Cut(s, "=")
	if !ok || op == "" {
		return LatencyLimit{}, fmt.Errorf("%q: want TRANSACTION=DURATION, e.g. newOrder=50ms", s)
	}
	max, err := time.ParseDuration(d)
	if err != nil || max <= 0 {
		return LatencyLimit{}, fmt.Errorf("%q: want a positive duration such as 50ms", s)
	}
	return LatencyLimit{Op: op, Percentile: percentile, Max: max}, nil
}

// ParsePercent reads "5%" or "5" as 5; it must be in [0, 100].
func ParsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q: want a percentage from 0 to 100, e.g. 5%%", s)
	}
	return v, nil
}

// FailedError lists the thresholds a run missed; its message is one line.
type FailedError struct {
	Failures []string
}

func (e *FailedError) Error() string {
	return "check-result: " + strings.Join(e.Failures, "; ")
}

// IncompleteError is a run whose result is incomplete: a measured run
// died on some workload host before the window's end, so every figure
// counts less than the run. A gate refuses it before any threshold
// (its own exit code): passing it would pass a smaller run, failing it
// would blame the database.
type IncompleteError struct {
	Run   string   // the run directory
	Hosts []string // report.IncompleteHosts
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("check-result: %s is INCOMPLETE, not checked: %s; measure again with: benchrig resume --from run %s",
		e.Run, strings.Join(e.Hosts, "; "), e.Run)
}

// Check returns nil when run meets every threshold, or a *FailedError.
// With repeats, a figure is the median of the repeats. A regression
// against baseline is a tpmC median more than MaxRegressionPercent below
// the baseline's; when both runs have repeats enough for the U test to
// detect a change (see package compare) and it finds none, the drop is
// noise and passes. Other errors mean the check could not be made.
func Check(run *compare.Run, t Thresholds, baseline *compare.Run) error {
	_, err := Evaluate(run, t, baseline)
	return err
}

// Evaluate is Check that also returns the thresholds met, one line each
// (for a verbose CI log).
func Evaluate(run *compare.Run, t Thresholds, baseline *compare.Run) (passed []string, err error) {
	res, err := results(run.Report)
	if err != nil {
		return nil, fmt.Errorf("check-result: %s: %w", run.Name, err)
	}
	for _, r := range []*compare.Run{run, baseline} {
		if r == nil {
			continue
		}
		if hosts := r.Report.IncompleteHosts(); len(hosts) > 0 {
			return nil, &IncompleteError{Run: r.Dir, Hosts: hosts}
		}
	}
	var fails []string
	tpmc := report.Median(res, func(r *report.Result) float64 { return r.TpmC })
	if t.MinTpmC > 0 {
		if tpmc < t.MinTpmC {
			fails = append(fails, fmt.Sprintf("tpmC %.1f < %g (min-tpmc)", tpmc, t.MinTpmC))
		} else {
			passed = append(passed, fmt.Sprintf("tpmC %.1f >= %g (min-tpmc)", tpmc, t.MinTpmC))
		}
	}
	if eff := report.Median(res, func(r *report.Result) float64 { return r.Efficiency }); t.MinEfficiency > 0 {
		if eff < t.MinEfficiency {
			fails = append(fails, fmt.Sprintf("efficiency %.2f%% < %g%% (min-efficiency)", eff, t.MinEfficiency))
		} else {
			passed = append(passed, fmt.Sprintf("efficiency %.2f%% >= %g%% (min-efficiency)", eff, t.MinEfficiency))
		}
	}
	for _, l := range t.Latency {
		ops := opNames(res)
		if l.Op != "*" {
			if !slices.Contains(ops, l.Op) {
				fails = append(fails, fmt.Sprintf("%s: no such transaction in the result (max-%s)", l.Op, l.Percentile))
				continue
			}
			ops = []string{l.Op}
		}
		for _, op := range ops {
			// Repeats without a transaction of this type have no
			// latency for it (their report says 0).
			var seen []*report.Result
			for _, r := range res {
				if r.OpCount(op) > 0 {
					seen = append(seen, r)
				}
			}
			if len(seen) == 0 {
				if l.Op != "*" {
					fails = append(fails, fmt.Sprintf("%s: no transactions completed, no latency to check (max-%s)", op, l.Percentile))
				}
				continue
			}
			got := report.Median(seen, func(r *report.Result) float64 { return r.OpPercentile(op, l.Percentile) })
			if limit := float64(l.Max) / float64(time.Millisecond); got > limit {
				fails = append(fails, fmt.Sprintf("%s %s %sms > %s (max-%s)", op, l.Percentile, strconv.FormatFloat(got, 'g', 4, 64), l.Max, l.Percentile))
			} else {
				passed = append(passed, fmt.Sprintf("%s %s %sms <= %s (max-%s)", op, l.Percentile, strconv.FormatFloat(got, 'g', 4, 64), l.Max, l.Percentile))
			}
		}
	}
	if t.MaxErrors != nil {
		n, known := errorCount(res)
		switch {
		case !known:
			fails = append(fails, "errors: report.json has no error counts to check (max-errors)")
		case n > float64(*t.MaxErrors):
			fails = append(fails, fmt.Sprintf("%g errors > %d (max-errors)", n, *t.MaxErrors))
		default:
			passed = append(passed, fmt.Sprintf("%g errors <= %d (max-errors)", n, *t.MaxErrors))
		}
	}
	if t.MaxRegressionPercent > 0 {
		if baseline == nil {
			return passed, errors.New("check-result: --max-regression needs a baseline run (--against)")
		}
		f, ok, err := regression(run, baseline, t.MaxRegressionPercent)
		if err != nil {
			return passed, err
		}
		if f != "" {
			fails = append(fails, f)
		}
		if ok != "" {
			passed = append(passed, ok)
		}
	}
	if len(fails) > 0 {
		return passed, &FailedError{Failures: fails}
	}
	return passed, nil
}

// regression returns the failure, or the line that says the check
// passed.
func regression(run, baseline *compare.Run, limit float64) (fail, pass string, err error) {
	c, err := compare.Compare(baseline, run)
	if err != nil {
		return "", "", fmt.Errorf("check-result: %w", err)
	}
	if len(c.Groups) != 1 {
		return "", "", errors.New("check-result: the runs measured different points (sweeps) and cannot be compared as one result")
	}
	for _, m := range c.Groups[0].Metrics {
		if m.Name != "tpmc" {
			continue
		}
		d := m.Deltas[0]
		stat := ""
		if d.Tested {
			stat = fmt.Sprintf(", p=%.3f n=%d+%d", *d.P, d.N1, d.N2)
		}
		change := fmt.Sprintf("tpmC %.1f against %s's %.1f", m.Values[1].Median, baseline.Name, m.Values[0].Median)
		switch {
		case d.Percent == nil || -*d.Percent <= limit:
			return "", fmt.Sprintf("%s: %+.2f%% (max-regression %g%%)", change, pctOf(d.Percent), limit), nil
		case d.Tested && !d.Significant && compare.MinP(d.N1, d.N2) < compare.Alpha:
			// A drop the test could have seen and did not: noise.
			return "", fmt.Sprintf("%s: %+.2f%%, not significant%s (max-regression %g%%)", change, *d.Percent, stat, limit), nil
		}
		return fmt.Sprintf("tpmC %.1f is %.2f%% below %s's %.1f (max-regression %g%%)%s", m.Values[1].Median, -*d.Percent, baseline.Name, m.Values[0].Median, limit, stat), "", nil
	}
	return "", "", nil
}

func pctOf(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// results are the results to check: the plan's single result, or its
// repeats; a sweep has no single result.
func results(r *report.Report) ([]*report.Result, error) {
	if len(r.Rounds) == 0 {
		if r.Result == nil {
			return nil, errors.New("report.json has no TPC-C result")
		}
		return []*report.Result{r.Result}, nil
	}
	var out []*report.Result
	for _, rd := range r.Rounds {
		if rd.Flag != "" {
			return nil, errors.New("a sweep has no single result to check (check one point's run)")
		}
		if rd.Result != nil {
			out = append(out, rd.Result)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("report.json has no TPC-C result")
	}
	return out, nil
}

func opNames(res []*report.Result) []string {
	var names []string
	for _, r := range res {
		for _, o := range r.Ops {
			if !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
		}
	}
	return names
}

// errorCount is the median over repeats of all transactions' errors;
// known is false when a result reports no error count at all.
func errorCount(res []*report.Result) (float64, bool) {
	known := true
	n := report.Median(res, func(r *report.Result) float64 {
		var s int64
		some := false
		for _, o := range r.Ops {
			if o.Errors != nil {
				s += *o.Errors
				some = true
			}
		}
		known = known && some
		return float64(s)
	})
	return n, known
}
