package tpcc

import (
	"fmt"
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

type hdrHistogram = hdr.Histogram

// Console formats, as CockroachDB's `workload run` prints them so that
// users' scripts and eyes keep working.
const (
	progressHeader = "_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
	totalHeader    = "_elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
	tpmcHeader     = "_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)"
)

// reporter prints progress lines, re-printing the header every 20 rows.
type reporter struct {
	w    io.Writer
	rows int
}

func newReporter(w io.Writer) *reporter { return &reporter{w: w} }

// progress prints one row per operation for a tick: elapsed, cumulative
// errors, this tick's rate, the cumulative rate, this tick's percentiles;
// then the live tpmC. The --ticks files are written from the same value.
func (r *reporter) progress(ts result.TickStats) {
	var b strings.Builder
	errs := ts.Errors()
	for _, x := range ts.Txns {
		if r.rows%20 == 0 {
			b.WriteString(progressHeader + "\n")
		}
		r.rows++
		fmt.Fprintf(&b, "%7.1fs %8d %14.1f %14.1f %8.1f %8.1f %8.1f %8.1f %s\n",
			ts.Elapsed.Seconds(), errs, x.OpsPerSec, x.OpsPerSecCum, x.P50, x.P95, x.P99, x.Max, x.Name)
	}
	// The live figure people watch: New-Orders per minute, this tick and
	// so far (the orchestrator streams it host by host).
	if ts.HasTpmC {
		fmt.Fprintf(&b, "%7.1fs tpmC %.1f (this tick) %.1f (so far)\n", ts.Elapsed.Seconds(), ts.TpmC, ts.TpmCCum)
	}
	io.WriteString(r.w, b.String())
}

// final prints the totals per operation, the overall result, the audit
// checks and the tpmC line.
func (r *reporter) final(res *RunResult) {
	io.WriteString(r.w, formatFinal(res))
}

// fidelity:v20.1/D26
func formatFinal(res *RunResult) string {
	var b strings.Builder
	el := res.Elapsed
	fmt.Fprintf(&b, "\n%s__total\n", totalHeader)
	all := histogram.NewHistogram()
	var allErr int64
	for _, name := range res.Result.Names() {
		h := res.Result.Cumulative[name]
		all.Merge(h)
		e := errorsOf(res, name)
		allErr += e
		fmt.Fprintf(&b, "%7.1fs %8d %14d %14.1f %8.1f %8.1f %8.1f %8.1f %8.1f  %s\n",
			el.Seconds(), e, h.TotalCount(), rate(h.TotalCount(), el),
			mean(h), ms(h, 50), ms(h, 95), ms(h, 99), ms(h, 100), name)
	}
	fmt.Fprintf(&b, "\n%s__result\n", totalHeader)
	fmt.Fprintf(&b, "%7.1fs %8d %14d %14.1f %8.1f %8.1f %8.1f %8.1f %8.1f  \n",
		el.Seconds(), allErr, all.TotalCount(), rate(all.TotalCount(), el),
		mean(all), ms(all, 50), ms(all, 95), ms(all, 99), ms(all, 100))

	// Retries are not errors: the database asked for them (40001/40P01).
	// They are part of a run's cost, so they are shown per 1,000
	// transactions next to the counts, whatever the isolation level.
	fmt.Fprintf(&b, "\nRetries (serialization failures and deadlocks, retried with backoff):")
	var done, retries int64
	for t := range numTxnTypes {
		fmt.Fprintf(&b, " %s %d (%.1f/1000)", t, res.Retries[t], result.Per1000(res.Retries[t], res.Counts[t]))
		done += res.Counts[t]
		retries += res.Retries[t]
	}
	fmt.Fprintf(&b, "; total %d (%.1f per 1,000 transactions)", retries, result.Per1000(retries, done))
	// What they cost: failed attempts' time and backoff sleeps, summed
	// over transactions, and that as a share of all response times.
	var work, backoff time.Duration
	var latency float64 // ns
	for t := range numTxnTypes {
		work += res.RetryWork[t]
		backoff += res.RetryBackoff[t]
		if res.Result == nil {
			continue
		}
		if h := res.Result.Cumulative[t.String()]; h != nil {
			latency += h.Mean() * float64(h.TotalCount())
		}
	}
	if lost := work + backoff; lost > 0 {
		pct := 0.0
		if latency > 0 {
			pct = 100 * min(float64(lost)/latency, 1)
		}
		fmt.Fprintf(&b, "; %s lost to retries (%s of it backoff), %.1f%% of response time",
			lost.Round(time.Millisecond), backoff.Round(time.Millisecond), pct)
	}
	var gaveUp int64
	for _, n := range res.GaveUp {
		gaveUp += n
	}
	if gaveUp > 0 {
		fmt.Fprintf(&b, "; %d transaction(s) gave up, counted as errors", gaveUp)
	}
	b.WriteString("\n\n")
	for _, a := range res.Audit {
		b.WriteString(a.String() + "\n")
	}
	no := res.Result.Cumulative[histogram.NewOrder]
	if no == nil {
		no = histogram.NewHistogram()
	}
	// The line has workload's format, so it carries workload's per-host
	// efc (over all active warehouses of the run, as a recipe's per-host
	// lines show it); benchrig's own, over this host's warehouses, is
	// named on the line after. A result without the run's count (a
	// single host's run) has only the one.
	efc := res.Efficiency
	if res.AllActive > 0 {
		efc = res.WorkloadEfficiency
	}
	fmt.Fprintf(&b, "\n%s\n", tpmcHeader)
	fmt.Fprintf(&b, "%7.1fs %10.1f %5.1f%% %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n",
		el.Seconds(), res.TpmC, efc, mean(no), ms(no, 50), ms(no, 90), ms(no, 95), ms(no, 99), ms(no, 100))
	if res.Profile != "" {
		fmt.Fprintf(&b, "Profile %s, %d connections; efc %.1f%% over all %d active warehouses of the run (workload's per-host efc, the line above), %.1f%% over this host's %d (benchrig)\n",
			res.Profile, res.Connections, res.WorkloadEfficiency, res.AllActive, res.Efficiency, res.Result.Warehouses)
	}
	return b.String()
}

func errorsOf(res *RunResult, name string) int64 {
	for t := range numTxnTypes {
		if t.String() == name {
			return res.Errors[t]
		}
	}
	return 0
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

func ms(h *hdrHistogram, q float64) float64 { return histogram.Millis(h.ValueAtQuantile(q)) }

func mean(h *hdrHistogram) float64 { return h.Mean() / float64(time.Millisecond) }
