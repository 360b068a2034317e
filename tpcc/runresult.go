package tpcc

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// NewResult is the run result of one host; runErr is what Run returned
// with it (an *AuditError is already in the audit checks).
func NewResult(cfg RunConfig, res *RunResult, runErr error) *result.Result {
	r := &result.Result{
		Header:     envelope.New(result.KindRun),
		Warehouses: cfg.Warehouses, ActiveWarehouses: cfg.ActiveWarehouses, Partitions: cfg.Partitions,
		Affinity: cfg.Affinity, Wait: &cfg.Wait, RampSeconds: cfg.Ramp.Seconds(), DurationSeconds: cfg.Duration.Seconds(),
		ElapsedSeconds: res.Elapsed.Seconds(), TpmC: res.TpmC, Efficiency: res.Efficiency,
		WarehouseFactor: histogram.SpecWarehouseFactor, Judged: res.Counts[NewOrderTxn] >= minEfficiencySample,
		Pass: true,
	}
	if r.ActiveWarehouses == 0 {
		r.ActiveWarehouses = r.Warehouses
	}
	if res.Result != nil {
		r.EfficiencyWarehouses = res.Result.Warehouses
	}
	if start := res.StartAt; !start.IsZero() {
		at, ms := start.UTC(), histogram.Millis(int64(res.StartDelay))
		r.StartAt, r.StartDelayMs = &at, &ms
	}
	if !res.ReadyAt.IsZero() {
		at := res.ReadyAt.UTC()
		r.ReadyAt = &at
	}
	var retries, done int64
	for t := range numTxnTypes {
		txn := result.TxnOf(t.String(), res.Result, res.Elapsed)
		errs, rt, gaveUp := res.Errors[t], res.Retries[t], res.GaveUp[t]
		txn.Errors, txn.Retries, txn.GaveUp = &errs, &rt, &gaveUp
		lost, backoff := histogram.Millis(int64(res.RetryWork[t]+res.RetryBackoff[t])), histogram.Millis(int64(res.RetryBackoff[t]))
		txn.RetryLostMs, txn.RetryBackoffMs = &lost, &backoff
		r.Transactions = append(r.Transactions, txn)
		retries += rt
		done += res.Counts[t]
	}
	per := result.Per1000(retries, done)
	r.Retries, r.RetriesPer1000 = &retries, &per
	r.SetRetryTotals()
	if res.Isolation != "" {
		r.Isolation = string(res.Isolation)
	}
	r.ClientProcs = res.Procs
	for _, a := range res.Audit {
		r.Audit = append(r.Audit, result.AuditCheck{ID: a.ID, Verdict: string(a.Status), Observed: a.Observed,
			Min: a.Min, Max: a.Max, Unit: a.Unit, Detail: a.Detail})
		if a.Status == AuditFail {
			r.Pass = false
			r.Failures = append(r.Failures, a.ID+": "+a.Detail)
		}
	}
	if cfg.NoVerdict {
		// The audit checks stay in the result, as observations.
		r.Judged, r.Pass, r.Failures = false, true, nil
	}
	var ae *AuditError
	if runErr != nil && !errors.As(runErr, &ae) {
		r.Pass, r.Error = false, runErr.Error()
	}
	if res.Profile != "" { // the load profile (loadprofile.go)
		we := res.WorkloadEfficiency
		r.Profile, r.Connections, r.WorkloadEfficiency = string(res.Profile), res.Connections, &we
	}
	return r
}

// RunResult is what a run measured, after the ramp.
type RunResult struct {
	Elapsed    time.Duration
	TpmC       float64
	Efficiency float64 // % of 12.86 × this host's active warehouses
	// WorkloadEfficiency is workload's per-host efc: % of 12.86 × the
	// active warehouses of the whole run (all hosts).
	WorkloadEfficiency float64
	Profile            Profile // the load profile that ran
	Connections        int     // connections this host opened
	AllActive          int     // active warehouses of the whole run (WorkloadEfficiency's)
	CLoad              Constants
	Counts             [numTxnTypes]int64
	Errors             [numTxnTypes]int64
	Retries            [numTxnTypes]int64 // retried 40001/40P01 aborts
	GaveUp             [numTxnTypes]int64 // transactions whose retry budget ran out (also in Errors)
	// RetryWork and RetryBackoff are what retries cost: the failed
	// attempts' time and the backoff sleeps, summed over transactions
	// (both are inside the retried transactions' latencies).
	RetryWork, RetryBackoff [numTxnTypes]time.Duration
	Isolation               pgx.TxIsoLevel
	StartDelay              time.Duration // how late the run started after StartAt (0 without it)
	// StartAt is the instant the run started at (--start-at, or the
	// start file's); ReadyAt when it became ready (the start barrier's
	// ready file; zero without it).
	StartAt, ReadyAt time.Time
	// Procs is the driver's GOMAXPROCS over the run (nil: left alone).
	Procs  *result.ClientProcs
	Audit  []AuditResult
	Result *histogram.Result // cumulative histograms
}

// AuditError is returned when an audit check or the efficiency fails.
type AuditError struct {
	Failed []AuditResult
}

func (e *AuditError) Error() string {
	s := "tpcc run: audit failed:"
	for _, f := range e.Failed {
		s += " " + f.ID + " (" + f.Detail + ")"
	}
	return s
}

// newRunResult gathers the measurement interval's histograms and counters.
// Efficiency is against 12.86 tpmC per active warehouse of this host.
func newRunResult(final []histogram.Interval, c *counters, elapsed time.Duration, activeHere int) *RunResult {
	res := &RunResult{Elapsed: elapsed, Result: &histogram.Result{
		Warehouses: activeHere, Cumulative: map[string]*hdrHistogram{}, Elapsed: elapsed}}
	for _, iv := range final {
		res.Result.Cumulative[iv.Name] = iv.Cumulative
	}
	for t := range numTxnTypes {
		res.Counts[t] = c.done[t].Load()
		res.Errors[t] = c.errors[t].Load()
		res.Retries[t] = c.retries[t].Load()
		res.GaveUp[t] = c.gaveUp[t].Load()
		res.RetryWork[t] = time.Duration(c.retryWork[t].Load())
		res.RetryBackoff[t] = time.Duration(c.retryBackoff[t].Load())
	}
	if m := elapsed.Minutes(); m > 0 {
		res.TpmC = float64(res.Counts[NewOrderTxn]) / m
	}
	res.Efficiency = 100 * res.TpmC / (histogram.SpecWarehouseFactor * float64(activeHere))
	return res
}
