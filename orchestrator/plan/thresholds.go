package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Thresholds are a run's pass criteria, like k6's thresholds: the plan's
// `thresholds:` section, checked when a run ends (exit 30 with a one-line
// reason) and by `benchrig check-result RUN` without flags. gate checks
// them (gate.Thresholds is this type); zero values (and nil pointers) set
// no limit.
type Thresholds struct {
	MinTpmC       float64 `yaml:"min_tpmc,omitempty" json:"min_tpmc,omitempty"`
	MinEfficiency float64 `yaml:"min_efficiency_percent,omitempty" json:"min_efficiency_percent,omitempty"`
	// Latency limits, e.g. newOrder p95 ≤ 50ms; Op "*" is every
	// transaction.
	Latency []LatencyLimit `yaml:"latency,omitempty" json:"latency,omitempty"`
	// MaxErrors is the most transaction errors of all types together.
	MaxErrors *int64 `yaml:"max_errors,omitempty" json:"max_errors,omitempty"`
	// MaxRegressionPercent is how far tpmC may fall below a baseline
	// run's (check-result --against); a plan has no baseline, so its
	// thresholds may not set it.
	MaxRegressionPercent float64 `yaml:"max_regression_percent,omitempty" json:"max_regression_percent,omitempty"`
}

// LatencyLimit bounds one percentile of one transaction's latency.
type LatencyLimit struct {
	Op         string        `yaml:"op" json:"op"`
	Percentile string        `yaml:"percentile" json:"percentile"`
	Max        time.Duration `yaml:"max" json:"max"`
}

// Percentiles are the latency figures a limit can name.
var Percentiles = []string{"p50", "p90", "p95", "p99", "max"}

// thresholdOps are the transactions a latency limit may name ("*": all).
var thresholdOps = []string{"*", "newOrder", "payment", "orderStatus", "delivery", "stockLevel"}

// validateThresholds bounds the thresholds section.
func validateThresholds(ps *problems, p *Plan) {
	t := p.Thresholds
	if t == nil {
		return
	}
	if p.Benchmark == "crud" {
		ps.at(p.nodeOr(t), "thresholds: judge a TPC-C result; benchmark crud has none")
		return
	}
	if t.MinTpmC < 0 || t.MinTpmC > 1e9 {
		ps.at(p.nodeOr(&t.MinTpmC), "thresholds.min_tpmc: want 0 to 1e9, got %g", t.MinTpmC)
	}
	if t.MinEfficiency < 0 || t.MinEfficiency > 100 {
		ps.at(p.nodeOr(&t.MinEfficiency), "thresholds.min_efficiency_percent: want 0 to 100, got %g", t.MinEfficiency)
	}
	if t.MaxErrors != nil && *t.MaxErrors < 0 {
		ps.at(p.nodeOr(t.MaxErrors), "thresholds.max_errors: must not be negative")
	}
	if t.MaxRegressionPercent != 0 {
		ps.at(p.nodeOr(&t.MaxRegressionPercent), "thresholds.max_regression_percent: needs a baseline run; use benchrig check-result RUN --against BASELINE --max-regression N%%")
	}
	for i := range t.Latency {
		l := &t.Latency[i]
		where := fmt.Sprintf("thresholds.latency[%d]", i)
		checkOpPercentile(ps, p, where, &l.Op, &l.Percentile)
		if l.Max <= 0 || l.Max > time.Hour {
			ps.at(p.nodeOr(&l.Max), "%s.max: want a duration from 1ns to 1h, such as 50ms", where)
		}
	}
	if t.MinTpmC == 0 && t.MinEfficiency == 0 && len(t.Latency) == 0 && t.MaxErrors == nil {
		ps.at(p.nodeOr(t), "thresholds: set at least one of min_tpmc, min_efficiency_percent, latency, max_errors")
	}
}

// checkOpPercentile checks a latency's transaction (or "*") and
// percentile, of a threshold or a published figure at where.
func checkOpPercentile(ps *problems, p *Plan, where string, op, percentile *string) {
	if !slices.Contains(thresholdOps, *op) {
		ps.at(p.nodeOr(op), "%s.op: want one of %s, got %q%s", where, strings.Join(thresholdOps, ", "), *op, suggest(*op, thresholdOps))
	}
	if !slices.Contains(Percentiles, *percentile) {
		ps.at(p.nodeOr(percentile), "%s.percentile: want one of %s, got %q%s", where, strings.Join(Percentiles, ", "), *percentile, suggest(*percentile, Percentiles))
	}
}
