package tpcc

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

// checkSchema validates a result document against the documented schema.
func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	resulttest.CheckSchema(t, "../docs/schema", doc)
}

// TestRunResultGolden: the 1k recipe's fixed result with its audit, as
// `tpcc run --result` writes it, is pinned and matches the schema.
func TestRunResultGolden(t *testing.T) {
	res := fixedResult(t)
	res.Audit = fixedAudit(res)
	res.StartDelay = 2500 * time.Microsecond
	cfg := RunConfig{Warehouses: 1000, Partitions: 5, Affinity: []int{1}, Ramp: time.Minute, Duration: 30 * time.Minute, Wait: 1,
		StartAt: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	res.StartAt = cfg.StartAt // Run records the instant it started at (--start-at or the barrier's)
	r := NewResult(cfg, res, &AuditError{})
	if r.Pass || len(r.Failures) != 1 || !strings.HasPrefix(r.Failures[0], "9.2.2.5.4: ") || r.Error != "" {
		t.Errorf("pass %v, failures %q, error %q; want the 9.2.2.5.4 failure only", r.Pass, r.Failures, r.Error)
	}
	if *r.StartDelayMs != 2.5 || r.ActiveWarehouses != 1000 || !r.Judged {
		t.Errorf("start delay %v, active %d, judged %v", *r.StartDelayMs, r.ActiveWarehouses, r.Judged)
	}
	doc, err := envelope.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "result_run.json", string(doc))
	checkSchema(t, doc)

	// A run stopped by an error says so and does not pass.
	if r := NewResult(cfg, res, errors.New("tpcc run: stopped by an error")); r.Pass || r.Error == "" {
		t.Errorf("stopped run: pass %v, error %q", r.Pass, r.Error)
	}
}

// TestRunResultNoVerdict: a run asked for no verdict (the recipes'
// partitioning run, which workload never judges) keeps its audit checks
// as observations but is neither judged nor failed by them; an error
// that stopped it still fails it.
func TestRunResultNoVerdict(t *testing.T) {
	res := fixedResult(t)
	res.Audit = fixedAudit(res)
	cfg := RunConfig{Warehouses: 1000, Duration: time.Minute, Wait: 1, NoVerdict: true}
	r := NewResult(cfg, res, nil)
	if r.Judged || !r.Pass || len(r.Failures) != 0 || len(r.Audit) != len(res.Audit) {
		t.Errorf("judged %v, pass %v, failures %q, %d audit checks (want %d)", r.Judged, r.Pass, r.Failures, len(r.Audit), len(res.Audit))
	}
	failed := false
	for _, a := range r.Audit {
		failed = failed || a.Verdict == string(AuditFail)
	}
	if !failed {
		t.Error("the failed check is not kept as an observation")
	}
	if r := NewResult(cfg, res, errors.New("tpcc run: stopped by an error")); r.Pass || r.Error == "" {
		t.Errorf("stopped run: pass %v, error %q", r.Pass, r.Error)
	}
}

// TestRunResultFromPostgres: a real run's result, started with --start-at,
// has its start delay, its counts and audit, and matches the schema.
func TestRunResultFromPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := loadOneWarehouse(t, pgtest.NoSync())
	cfg := RunConfig{URLs: []string{url}, Warehouses: 1, Wait: 0, Workers: 2, Duration: 2 * time.Second, Seed: 3,
		StartAt: time.Now().Add(300 * time.Millisecond), Out: io.Discard}
	res, err := Run(context.Background(), chosen(cfg))
	var ae *AuditError
	if err != nil && !errors.As(err, &ae) {
		t.Fatal(err)
	}
	r := NewResult(cfg, res, err)
	if r.StartDelayMs == nil || *r.StartDelayMs < 0 || *r.StartDelayMs > 1000 {
		t.Errorf("start delay %v ms", r.StartDelayMs)
	}
	if r.Transactions[0].Count != res.Counts[NewOrderTxn] || r.Transactions[0].Count == 0 || len(r.Audit) != len(res.Audit) {
		t.Errorf("newOrder %+v, counted %d; %d audit checks, want %d", r.Transactions[0], res.Counts[NewOrderTxn], len(r.Audit), len(res.Audit))
	}
	path := filepath.Join(t.TempDir(), result.ResultFileFor("workload1.histogram.ndjson"))
	if err := result.WriteResult(path, r); err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(path)
	checkSchema(t, doc)
	if back, err := result.ReadResult(path); err != nil || back.TpmC != r.TpmC {
		t.Errorf("read back: %v, %v", back, err)
	}
}
