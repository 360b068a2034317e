package tpcc

import (
	"errors"

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
