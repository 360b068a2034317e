package tpcc

import (
	"fmt"
	"math"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
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

// The ratio checks of clause 9.2.2.5 compare counts that a correct driver
// draws at random: each New-Order rolls back with probability 1%, so the
// rollbacks of n New-Orders are Binomial(n, 0.01). The spec's windows
// (0.9..1.1% and so on) are meant for audited runs of millions of
// transactions; at 10-17k New-Orders a correct run falls outside
// 0.9..1.1% about a quarter of the time. A check therefore passes when
// the observed count is inside the spec's window OR inside the interval
// that holds a correct run's count with probability 1 - checkAlpha
// (exact binomial tails). With checkAlpha = 5e-8 and at most 18 such
// checks per run, a correct run fails the audit with probability below
// 1e-6 (Bonferroni); a wrong ratio fails once the run is long enough to
// tell it apart from the right one.
const checkAlpha = 5e-8

// binomialRange returns [lo, hi] such that a Binomial(n, p) count falls
// below lo with probability <= alpha/2 and above hi with probability
// <= alpha/2. The tails are summed exactly (log-space pmf) from 20
// standard deviations out, where the mass left out is below 1e-80.
func binomialRange(n int64, p, alpha float64) (lo, hi int64) {
	if n <= 0 || p <= 0 {
		return 0, 0
	}
	if p >= 1 {
		return n, n
	}
	nf := float64(n)
	lgN, _ := math.Lgamma(nf + 1)
	lp, lq := math.Log(p), math.Log1p(-p)
	pmf := func(k int64) float64 {
		kf := float64(k)
		a, _ := math.Lgamma(kf + 1)
		b, _ := math.Lgamma(nf - kf + 1)
		return math.Exp(lgN - a - b + kf*lp + (nf-kf)*lq)
	}
	mean, sd := nf*p, math.Sqrt(nf*p*(1-p))
	from := max(0, int64(mean-20*sd-50))
	to := min(n, int64(mean+20*sd+50))
	lo, hi = from, to
	for k, cum := from, 0.0; k <= to; k++ {
		if cum += pmf(k); cum > alpha/2 {
			lo = k
			break
		}
	}
	for k, cum := to, 0.0; k >= from; k-- {
		if cum += pmf(k); cum > alpha/2 {
			hi = k
			break
		}
	}
	return lo, hi
}

// ratioCheck judges k successes of n trials that a correct driver draws
// with probability p, against the spec's window [lo%, hi%]: pass inside
// the window or inside the binomial range (see checkAlpha).
//
// accLo and accHi are the percentages the verdict accepted: the union of
// the window and the binomial range (the bounds a report shows).
func ratioCheck(k, n int64, p, lo, hi float64) (st AuditStatus, want string, accLo, accHi float64) {
	pct := 0.0
	if n > 0 {
		pct = 100 * float64(k) / float64(n)
	}
	bl, bh := binomialRange(n, p, checkAlpha)
	st = AuditFail
	if (pct >= lo && pct <= hi) || (k >= bl && k <= bh) {
		st = AuditPass
	}
	accLo, accHi = lo, hi
	if n > 0 {
		accLo, accHi = min(lo, 100*float64(bl)/float64(n)), max(hi, 100*float64(bh)/float64(n))
	}
	return st, fmt.Sprintf("want %g..%g%% or, for %d draws at %g%%, %d..%d", lo, hi, n, 100*p, bl, bh), accLo, accHi
}

// everyWarehouseUsed reports whether the "every warehouse used remotely"
// part of 9.2.2.5.3/4 can be judged from remote remote choices among w
// warehouses: a warehouse escapes r uniform choices with probability
// about exp(-r/w), so the check waits until w·exp(-r/w) < checkAlpha.
func everyWarehouseUsed(remote int64, w int) bool {
	return float64(remote) >= float64(w)*(math.Log(float64(w))-math.Log(checkAlpha))
}

// minEfficiencySample is the New-Order count below which efficiency is
// reported but not judged: the result's rule (result.MinEfficiencySample).
const minEfficiencySample = result.MinEfficiencySample

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
		rb := c.noRollbacks.Load()
		st, want, lo, hi := ratioCheck(rb, no, 0.01, 0.9, 1.1)
		measured("9.2.2.5.1", st, pct(rb, no), &lo, &hi, "%", "%.2f%% rolled back (%d), %s", pct(rb, no), rb, want)
	}
	// 9.2.2.5.2: average order lines 9.5..10.5, and each count 5..15 at
	// 100/11 % ± 1%.
	if !skip("9.2.2.5.2", no, "new orders") {
		lines := c.noLines.Load()
		avg := float64(lines) / float64(no)
		st := within(avg, 9.5, 10.5)
		worst := 0.0
		for n := 5; n <= 15; n++ {
			k := c.noOLCnt[n].Load()
			worst = math.Max(worst, math.Abs(pct(k, no)-100.0/11))
			if cs, _, _, _ := ratioCheck(k, no, 1.0/11, 100.0/11-1, 100.0/11+1); cs == AuditFail {
				st = AuditFail
			}
		}
		measured("9.2.2.5.2", st, avg, bound(9.5), bound(10.5), "lines/order", "%.2f lines per order; worst count off by %.2f%% (want <= 1%% or within the binomial range)", avg, worst)
	}
	// A remote line's or payment's warehouse is never its terminal's home
	// (clauses 2.4.1.5, 2.5.1.2), so when every counted transaction had
	// the same home (one no-wait worker, a host with one active
	// warehouse) remote draws reach every warehouse but that one.
	reach := warehouses
	if c.homeW.count() == 1 {
		reach--
	}
	// 9.2.2.5.3: 1% remote order lines, every reachable warehouse used
	// remotely.
	switch {
	case warehouses < 2:
		add("9.2.2.5.3", AuditSkip, "single warehouse: no remote lines")
	case !skip("9.2.2.5.3", no, "new orders"):
		remote, lines := c.noRemoteLines.Load(), c.noLines.Load()
		st, want, lo, hi := ratioCheck(remote, lines, 0.01, 0.95, 1.05)
		used := c.remoteLineW.count()
		detail := fmt.Sprintf("%.3f%% remote lines, %s", pct(remote, lines), want)
		if everyWarehouseUsed(remote, reach) {
			if used < reach {
				st = AuditFail
			}
			detail += fmt.Sprintf("; %d of %d warehouses supplied remotely", used, reach)
		}
		measured("9.2.2.5.3", st, pct(remote, lines), &lo, &hi, "%", "%s", detail)
	}
	// 9.2.2.5.4: 15% remote payments, every reachable warehouse used
	// remotely.
	switch {
	case warehouses < 2:
		add("9.2.2.5.4", AuditSkip, "single warehouse: no remote payments")
	case !skip("9.2.2.5.4", pay, "payments"):
		remote := c.payRemote.Load()
		st, want, lo, hi := ratioCheck(remote, pay, 0.15, 14, 16)
		used := c.remotePayW.count()
		detail := fmt.Sprintf("%.2f%% remote payments, %s", pct(remote, pay), want)
		if everyWarehouseUsed(remote, reach) {
			if used < reach {
				st = AuditFail
			}
			detail += fmt.Sprintf("; %d of %d warehouses paid remotely", used, reach)
		}
		measured("9.2.2.5.4", st, pct(remote, pay), &lo, &hi, "%", "%s", detail)
	}
	// 9.2.2.5.5 and .6: 60% of Payments and Order-Status by last name.
	if !skip("9.2.2.5.5", pay, "payments") {
		k := c.payByName.Load()
		st, want, lo, hi := ratioCheck(k, pay, 0.6, 57, 63)
		measured("9.2.2.5.5", st, pct(k, pay), &lo, &hi, "%", "%.2f%% of payments by last name, %s", pct(k, pay), want)
	}
	if !skip("9.2.2.5.6", os, "order status transactions") {
		k := c.osByName.Load()
		st, want, lo, hi := ratioCheck(k, os, 0.6, 57, 63)
		measured("9.2.2.5.6", st, pct(k, os), &lo, &hi, "%", "%.2f%% of order status by last name, %s", pct(k, os), want)
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
