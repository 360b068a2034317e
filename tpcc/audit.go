package tpcc

import (
	"fmt"
	"math"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
)

// AuditStatus is the outcome of one check.
type AuditStatus string

// The outcomes, printed as CockroachDB prints them.
const (
	AuditPass AuditStatus = "PASS"
	AuditFail AuditStatus = "FAIL"
	AuditSkip AuditStatus = "SKIP"
)

// AuditResult is one line of the audit.
type AuditResult struct {
	ID     string // spec clause
	Status AuditStatus
	Detail string
	// Observed is the value the verdict was taken on, in Unit, and Min
	// and Max its bounds (nil: no bound on that side). A SKIP, and the
	// mix check (5.2.3, one bound per transaction type), have none.
	Observed *float64
	Min, Max *float64
	Unit     string
}

func (a AuditResult) String() string {
	s := "Audit check " + a.ID + ": " + string(a.Status)
	if a.Detail != "" {
		s += ": " + a.Detail
	}
	return s
}

// minSignificant is the transaction count below which a ratio check is
// skipped: with fewer, a 1% rate's sampling noise exceeds the tolerance
// (CockroachDB uses the same 10,000).
const minSignificant = 10000

// minEfficiencySample is the New-Order count below which efficiency is
// reported but not judged (±3% at 1,000).
const minEfficiencySample = 1000

// audit runs the run-time checks of clause 9.2 over the measurement
// interval's counters, plus the mix minimums (5.2.3), the 90th-percentile
// response-time limits (5.2.5.7) and, in a spec-paced run, the efficiency.
func audit(c *counters, res *RunResult, warehouses int, wait float64) []AuditResult {
	var out []AuditResult
	add := func(id string, st AuditStatus, format string, args ...any) {
		out = append(out, AuditResult{ID: id, Status: st, Detail: fmt.Sprintf(format, args...)})
	}
	// measured is add with the observed value and its bounds.
	measured := func(id string, st AuditStatus, obs float64, lo, hi *float64, unit, format string, args ...any) {
		add(id, st, format, args...)
		out[len(out)-1].Observed, out[len(out)-1].Min, out[len(out)-1].Max, out[len(out)-1].Unit = &obs, lo, hi, unit
	}
	pct := func(n, of int64) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	within := func(x, lo, hi float64) AuditStatus {
		if x >= lo && x <= hi {
			return AuditPass
		}
		return AuditFail
	}
	skip := func(id string, n int64, what string) bool {
		if n < minSignificant {
			add(id, AuditSkip, "not enough %s: %d < %d", what, n, minSignificant)
			return true
		}
		return false
	}
	no := res.Counts[NewOrderTxn]
	pay := res.Counts[PaymentTxn]
	os := res.Counts[OrderStatusTxn]
	del := res.Counts[DeliveryTxn]

	// 9.2.1.7: skipped deliveries must not exceed 1%.
	if !skip("9.2.1.7", del, "deliveries") {
		sk := c.delSkipped.Load()
		st := AuditPass
		if float64(sk) > math.Max(1, 0.01*float64(del)) {
			st = AuditFail
		}
		measured("9.2.1.7", st, float64(sk), nil, bound(math.Max(1, 0.01*float64(del))), "districts", "%d skipped districts in %d deliveries", sk, del)
	}
	// 9.2.2.5.1: 1% of New-Orders roll back.
	if !skip("9.2.2.5.1", no, "new orders") {
		p := pct(c.noRollbacks.Load(), no)
		measured("9.2.2.5.1", within(p, 0.9, 1.1), p, bound(0.9), bound(1.1), "%", "%.2f%% rolled back, want 0.9..1.1%%", p)
	}
	// 9.2.2.5.2: average order lines 9.5..10.5, and each count 5..15 at
	// 100/11 % ± 1%.
	if !skip("9.2.2.5.2", no, "new orders") {
		lines := c.noLines.Load()
		avg := float64(lines) / float64(no)
		st := within(avg, 9.5, 10.5)
		worst := 0.0
		for n := 5; n <= 15; n++ {
			d := math.Abs(pct(c.noOLCnt[n].Load(), no) - 100.0/11)
			worst = math.Max(worst, d)
			if d > 1 {
				st = AuditFail
			}
		}
		measured("9.2.2.5.2", st, avg, bound(9.5), bound(10.5), "lines/order", "%.2f lines per order; worst count off by %.2f%%", avg, worst)
	}
	// 9.2.2.5.3: 1% remote order lines, every warehouse used remotely.
	switch {
	case warehouses < 2:
		add("9.2.2.5.3", AuditSkip, "single warehouse: no remote lines")
	case !skip("9.2.2.5.3", no, "new orders"):
		remote := c.noRemoteLines.Load()
		p := pct(remote, c.noLines.Load())
		st := within(p, 0.95, 1.05)
		used := c.remoteLineW.count()
		detail := fmt.Sprintf("%.3f%% remote lines, want 0.95..1.05%%", p)
		if remote >= 15*int64(warehouses) {
			if used < warehouses {
				st = AuditFail
			}
			detail += fmt.Sprintf("; %d of %d warehouses supplied remotely", used, warehouses)
		}
		measured("9.2.2.5.3", st, p, bound(0.95), bound(1.05), "%", "%s", detail)
	}
	// 9.2.2.5.4: 15% remote payments, every warehouse used remotely.
	switch {
	case warehouses < 2:
		add("9.2.2.5.4", AuditSkip, "single warehouse: no remote payments")
	case !skip("9.2.2.5.4", pay, "payments"):
		remote := c.payRemote.Load()
		p := pct(remote, pay)
		st := within(p, 14, 16)
		used := c.remotePayW.count()
		detail := fmt.Sprintf("%.2f%% remote payments, want 14..16%%", p)
		if remote >= 15*int64(warehouses) {
			if used < warehouses {
				st = AuditFail
			}
			detail += fmt.Sprintf("; %d of %d warehouses paid remotely", used, warehouses)
		}
		measured("9.2.2.5.4", st, p, bound(14), bound(16), "%", "%s", detail)
	}
	// 9.2.2.5.5 and .6: 60% of Payments and Order-Status by last name.
	if !skip("9.2.2.5.5", pay, "payments") {
		p := pct(c.payByName.Load(), pay)
		measured("9.2.2.5.5", within(p, 57, 63), p, bound(57), bound(63), "%", "%.2f%% of payments by last name, want 57..63%%", p)
	}
	if !skip("9.2.2.5.6", os, "order status transactions") {
		p := pct(c.osByName.Load(), os)
		measured("9.2.2.5.6", within(p, 57, 63), p, bound(57), bound(63), "%", "%.2f%% of order status by last name, want 57..63%%", p)
	}
	// 5.2.3: the minimum mix.
	var total int64
	for _, n := range res.Counts {
		total += n
	}
	if !skip("5.2.3", total, "transactions") {
		mins := [numTxnTypes]float64{0, 43, 4, 4, 4}
		st := AuditPass
		detail := ""
		for t := range numTxnTypes {
			p := pct(res.Counts[t], total)
			if p < mins[t] {
				st = AuditFail
			}
			detail += fmt.Sprintf("%s %.2f%% ", t, p)
		}
		add("5.2.3", st, "mix %s", detail[:len(detail)-1])
	}
	// 5.2.5.7: 90th-percentile response times.
	for t := range numTxnTypes {
		id := "5.2.5.7/" + t.String()
		h := res.Result.Cumulative[t.String()]
		if h == nil || h.TotalCount() == 0 {
			add(id, AuditSkip, "no transactions")
			continue
		}
		limit, _ := histogram.ResponseTimeLimit(t.String())
		p90 := time.Duration(h.ValueAtQuantile(90))
		st := AuditPass
		if p90 > limit {
			st = AuditFail
		}
		measured(id, st, histogram.Millis(int64(p90)), nil, bound(histogram.Millis(int64(limit))), "ms", "p90 %s, limit %s", p90.Round(time.Microsecond*100), limit)
	}
	// Efficiency only means something with the spec's waits.
	if wait != 1 {
		add("efficiency", AuditSkip, "--wait=%v is not the spec's pacing", wait)
	} else if no < minEfficiencySample {
		// With N New-Orders the efficiency is known to about ±1/√N: a
		// one-minute smoke run cannot pass or fail on it.
		add("efficiency", AuditSkip, "%.1f%% from %d new orders, too few to judge (want >= %d)", res.Efficiency, no, minEfficiencySample)
	} else {
		st := AuditPass
		if res.Efficiency < histogram.PassingEfficiency {
			st = AuditFail
		}
		measured("efficiency", st, res.Efficiency, bound(histogram.PassingEfficiency), nil, "%", "%.1f%% of 12.86 tpmC per active warehouse, want >= %.0f%%", res.Efficiency, histogram.PassingEfficiency)
	}
	return out
}

func bound(x float64) *float64 { return &x }
