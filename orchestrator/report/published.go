package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// Published is the plan's published reference (its recipe page's own
// result, plan published:) with the run's figures beside it.
type Published struct {
	plan.PublishedView
	// Run is the run's figures, comparable with the published ones: its
	// result, or the median of its repeats; absent for a sweep, which has
	// no single result, and for a run without a result.
	Run *PublishedRun `json:"run,omitempty"`
}

// PublishedRun is the run beside the published figures.
type PublishedRun struct {
	// Of says which figures: "the run" or "the median of N repeats".
	Of   string  `json:"of"`
	TpmC float64 `json:"tpmc"`
	// TpmCPercent is the run's tpmC as a percentage of the published.
	TpmCPercent float64 `json:"tpmc_percent_of_published"`
	// Efficiency is the run's efficiency on the published figure's
	// basis (merged: 12.605 tpmC per warehouse; workload: 12.86).
	Efficiency *float64 `json:"efficiency_percent,omitempty"`
	// Latency follows the published latencies, in their order; Ms is
	// null where the run has no transaction of the kind.
	Latency []PublishedLatencyRun `json:"latency,omitempty"`
}

// PublishedLatencyRun is the run's figure for one published latency.
type PublishedLatencyRun struct {
	Op          string   `json:"op"`
	Percentile  string   `json:"percentile"`
	PublishedMs float64  `json:"published_ms"`
	Ms          *float64 `json:"ms"`
}

// ComparePublished sets r.Published from the plan's reference and the
// run's result (or repeats), as Build does: for a report written before
// the plan had one.
//
// fidelity:v25.4/48
func (r *Report) ComparePublished(p *plan.Plan) { r.published(p) }

// published sets r.Published from the plan's reference and the run's
// result (or repeats); call it after the result is read.
func (r *Report) published(p *plan.Plan) {
	v := p.Published.View()
	if v == nil {
		return
	}
	r.Published = &Published{PublishedView: *v}
	res, of := r.comparable()
	if len(res) == 0 {
		return
	}
	run := &PublishedRun{Of: of, TpmC: Median(res, func(x *Result) float64 { return x.TpmC })}
	run.TpmCPercent = 100 * run.TpmC / v.TpmC
	if v.Efficiency > 0 {
		factor := histogram.DeckWarehouseFactor
		if v.EfficiencyBasis == plan.EfficiencyWorkload {
			factor = histogram.SpecWarehouseFactor
		}
		e := Median(res, func(x *Result) float64 {
			if x.Warehouses <= 0 {
				return 0
			}
			return 100 * x.TpmC / (factor * float64(x.Warehouses))
		})
		run.Efficiency = &e
	}
	for _, l := range v.Latency {
		lr := PublishedLatencyRun{Op: l.Op, Percentile: l.Percentile, PublishedMs: l.Ms}
		var seen []*Result
		for _, x := range res {
			if x.OpCount(l.Op) > 0 {
				seen = append(seen, x)
			}
		}
		// Repeats without a transaction of this type have no latency
		// for it.
		if len(seen) > 0 {
			ms := Median(seen, func(x *Result) float64 { return x.OpPercentile(l.Op, l.Percentile) })
			lr.Ms = &ms
		}
		run.Latency = append(run.Latency, lr)
	}
	r.Published.Run = run
}

// Median is the median of get over res (not empty): how check-result and
// the published comparison take a figure of repeats.
func Median(res []*Result, get func(*Result) float64) float64 {
	xs := make([]float64, len(res))
	for i, x := range res {
		xs[i] = get(x)
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// comparable are the results a published figure is compared with: the
// run's, or its repeats'; none for a sweep or a search.
func (r *Report) comparable() ([]*Result, string) {
	if r.Result != nil {
		return []*Result{r.Result}, "the run"
	}
	var out []*Result
	for _, rd := range r.Rounds {
		if rd.Flag != "" {
			return nil, ""
		}
		if rd.Result != nil {
			out = append(out, rd.Result)
		}
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, fmt.Sprintf("the median of %d repeats", len(out))
}

// OpCount is how many transactions op completed (0: none, or no such op).
func (r *Result) OpCount(op string) int64 {
	for _, o := range r.Ops {
		if o.Name == op {
			return o.Count
		}
	}
	return 0
}

// OpPercentile is op's latency at percentile (p50, p90, p95, p99 or
// max) in ms; 0 for an op the result does not have.
func (r *Result) OpPercentile(op, percentile string) float64 {
	for _, o := range r.Ops {
		if o.Name != op {
			continue
		}
		switch percentile {
		case "p50":
			return o.P50
		case "p90":
			return o.P90
		case "p95":
			return o.P95
		case "p99":
			return o.P99
		case "max":
			return o.Max
		}
	}
	return 0
}

// Line is the comparison in one line: "1,201,000.0 tpmC = 96.4 % of the
// published 1,245,461.78 (measured on v19.2, 2019)"; without a run to
// compare, the published figure alone.
func (p *Published) Line() string {
	when := "measured on " + p.Release
	if p.Year != 0 {
		when += fmt.Sprintf(", %d", p.Year)
	}
	if p.Run == nil {
		return fmt.Sprintf("published %s tpmC (%s); no single result to compare", Thousands(p.TpmC, -1), when)
	}
	return fmt.Sprintf("%s tpmC = %.1f %% of the published %s (%s)", Thousands(p.Run.TpmC, 1), p.Run.TpmCPercent, Thousands(p.TpmC, -1), when)
}

// Thousands formats f with prec decimals (-1: as few as say it exactly)
// and commas between thousands: 1245461.78 is "1,245,461.78".
func Thousands(f float64, prec int) string {
	s := strconv.FormatFloat(f, 'f', prec, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// writePublished is the report's section on the published reference.
func writePublished(b *strings.Builder, p *Published) {
	if p == nil {
		return
	}
	b.WriteString("## Published reference\n\n")
	fmt.Fprintf(b, "%s.\n\n", Escape(p.Line()))
	fmt.Fprintf(b, "Published by %s", Escape(p.Page))
	if p.Note != "" {
		fmt.Fprintf(b, ": %s", Escape(p.Note))
	}
	b.WriteString(".\n\n")
	if p.Run == nil {
		return
	}
	run := "this run"
	if p.Run.Of != "the run" {
		run += " (" + p.Run.Of + ")"
	}
	pub := "published (" + p.Release
	if p.Year != 0 {
		pub += fmt.Sprintf(", %d", p.Year)
	}
	fmt.Fprintf(b, "| figure | %s | %s) |\n|---|---:|---:|\n", Escape(run), Escape(pub))
	fmt.Fprintf(b, "| tpmC | %s (%.1f %%) | %s |\n", Thousands(p.Run.TpmC, 1), p.Run.TpmCPercent, Thousands(p.TpmC, -1))
	if p.Run.Efficiency != nil {
		basis := "tpcc-merge-results, 12.605 tpmC per warehouse"
		if p.EfficiencyBasis == plan.EfficiencyWorkload {
			basis = "workload's efc, 12.86 tpmC per warehouse"
		}
		fmt.Fprintf(b, "| efficiency (%s) | %.2f %% | %s %% |\n", basis, *p.Run.Efficiency, strconv.FormatFloat(p.Efficiency, 'f', -1, 64))
	}
	for _, l := range p.Run.Latency {
		op, run := l.Op, "-"
		if l.Ms != nil {
			run = fmt.Sprintf("%.1f ms", *l.Ms)
		}
		fmt.Fprintf(b, "| %s %s | %s | %s ms |\n", Escape(op), l.Percentile, run, strconv.FormatFloat(l.PublishedMs, 'f', -1, 64))
	}
	b.WriteString("\n")
}
