package tpcc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// checkSchema validates a result document against the documented schema.
func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	file := "../docs/schema/result.v1.json"
	if bytes.Contains(doc, []byte(`"schema": "`+result.SchemaV2+`"`)) {
		file = "../docs/schema/result.v2.json"
	}
	s, err := jsonschema.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		t.Errorf("result does not match %s:\n%s", file, strings.Join(errs, "\n"))
	}
}

func TestResultFileFor(t *testing.T) {
	for in, want := range map[string]string{
		"workload1.histogram.ndjson":               "workload1.result.json",
		"workload2.workers-40.r2.histogram.ndjson": "workload2.workers-40.r2.result.json",
		"/tmp/h.ndjson":                            "/tmp/h.ndjson.result.json",
	} {
		if got := ResultFileFor(in); got != want {
			t.Errorf("ResultFileFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunResultGolden: the 1k recipe's fixed result with its audit, as
// `tpcc run --result` writes it, is pinned and matches the schema.
func TestRunResultGolden(t *testing.T) {
	res := fixedResult(t)
	res.Audit = fixedAudit(res)
	res.StartDelay = 2500 * time.Microsecond
	cfg := RunConfig{Warehouses: 1000, Partitions: 5, Affinity: []int{1}, Ramp: time.Minute, Duration: 30 * time.Minute, Wait: 1,
		StartAt: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	r := NewResult(cfg, res, &AuditError{})
	if r.Pass || len(r.Failures) != 1 || !strings.HasPrefix(r.Failures[0], "9.2.2.5.4: ") || r.Error != "" {
		t.Errorf("pass %v, failures %q, error %q; want the 9.2.2.5.4 failure only", r.Pass, r.Failures, r.Error)
	}
	if *r.StartDelayMs != 2.5 || r.ActiveWarehouses != 1000 || !r.Judged {
		t.Errorf("start delay %v, active %d, judged %v", *r.StartDelayMs, r.ActiveWarehouses, r.Judged)
	}
	doc, err := result.Marshal(r)
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

// writeHostFiles writes host k's histogram file: for 60 s, 1+k New-Orders
// of 20 ms and as many Payments of 5 ms per second.
func writeHostFiles(t *testing.T, dir string, k int) string {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	enc := histogram.NewEncoder(&b)
	for s := 1; s <= 60; s++ {
		for _, op := range histogram.TPCCNames() {
			h := histogram.NewHistogram()
			switch op {
			case histogram.NewOrder:
				_ = h.RecordValues(int64(20*time.Millisecond), int64(1+k))
			case histogram.Payment:
				_ = h.RecordValues(int64(5*time.Millisecond), int64(1+k))
			}
			if err := enc.Encode(histogram.Tick{Name: op, Hist: histogram.Export(h), Elapsed: time.Second, Now: t0.Add(time.Duration(s) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, "workload"+string(rune('1'+k))+".histogram.ndjson")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMergeFiles checks the merge formulas, the series and the errors
// summed from the hosts' run results, and pins the merged JSON.
func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := writeHostFiles(t, dir, 0), writeHostFiles(t, dir, 1)
	for k, path := range []string{a, b} {
		run := &Result{Header: result.New(KindRun)}
		for ty := range numTxnTypes {
			e, r := int64(k), int64(10*k+int(ty))
			lost, backoff := float64(100*k+10*int(ty)), float64(10*k+int(ty))
			run.Transactions = append(run.Transactions, Txn{Name: ty.String(), Errors: &e, Retries: &r,
				RetryLostMs: &lost, RetryBackoffMs: &backoff})
		}
		if err := WriteResult(ResultFileFor(path), run); err != nil {
			t.Fatal(err)
		}
	}
	r, m, err := MergeFiles(20, a, b)
	if err != nil {
		t.Fatal(err)
	}
	// Elapsed = 61 s - 1 s; 180 New-Orders a minute; 180 / (12.605 × 20)
	// = 71.4 %: too few New-Orders to judge, and failing.
	if r.ElapsedSeconds != 60 || r.TpmC != 180 || m.TpmC() != 180 || r.Judged || r.Pass || len(r.Failures) != 1 {
		t.Errorf("elapsed %v, tpmC %v, judged %v, pass %v; want 60 s, 180, not judged, failing efficiency", r.ElapsedSeconds, r.TpmC, r.Judged, r.Pass)
	}
	if len(r.Series) != 60 || r.Series[10].TpmC != 180 {
		t.Errorf("series: %d points, [10] = %+v; want 60 at 180 tpmC", len(r.Series), r.Series[10])
	}
	if no := r.Transactions[0]; no.Name != "newOrder" || no.Count != 180 || *no.Errors != 1 || *no.Retries != 10 || no.P50 < 19 || no.P50 > 21 {
		t.Errorf("newOrder %+v", no)
	}
	// Retry costs are summed over the hosts: newOrder 0 + 100 ms, all
	// types 2 × (0+10+20+30+40) + 100 × 5 = 700 ms.
	if no := r.Transactions[0]; no.RetryLostMs == nil || *no.RetryLostMs != 100 || *no.RetryBackoffMs != 10 ||
		r.RetryLostSeconds == nil || *r.RetryLostSeconds != 0.7 || r.RetriesPerTxn == nil || *r.Retries != 70 {
		t.Errorf("retry costs: newOrder %v/%v ms, total %v s, %v retries; want 100/10 ms, 0.7 s, 70", no.RetryLostMs, no.RetryBackoffMs, r.RetryLostSeconds, r.Retries)
	}
	for i, f := range r.Files {
		r.Files[i] = filepath.Base(f) // the golden without the temporary directory
	}
	doc, err := result.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "result_merge.json", string(doc))
	checkSchema(t, doc)

	// Without one host's run result, errors and retries are unknown.
	os.Remove(ResultFileFor(b))
	r, _, err = MergeFiles(20, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions[0].Errors != nil || r.Transactions[0].Retries != nil {
		t.Errorf("errors %v retries %v without host b's result, want null", r.Transactions[0].Errors, r.Transactions[0].Retries)
	}
	doc, _ = result.Marshal(r)
	checkSchema(t, doc)

	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, "no histogram file"},
		{[]string{filepath.Join(dir, "missing.ndjson")}, "missing.ndjson"},
	} {
		if _, _, err := MergeFiles(2, tc.files...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.files, err, tc.want)
		}
	}
	// Different warehouse counts per file cannot happen through MergeFiles;
	// a file of another kind is refused by ReadResult.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"schema":"benchrig.result/v1","kind":"crud"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResult(other); err == nil {
		t.Error("ReadResult accepted a crud result")
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
	res, err := Run(context.Background(), cfg)
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
	path := filepath.Join(t.TempDir(), ResultFileFor("workload1.histogram.ndjson"))
	if err := WriteResult(path, r); err != nil {
		t.Fatal(err)
	}
	doc, _ := os.ReadFile(path)
	checkSchema(t, doc)
	if back, err := ReadResult(path); err != nil || back.TpmC != r.TpmC {
		t.Errorf("read back: %v, %v", back, err)
	}
}

// TestMergeKeepsWorkloadFinalLine: a merge of driver: workload's files
// carries each host's own totals line, read from the output kept beside
// its histogram file, beside tpcc merge's figure; a host without one (its
// run died, or benchrig's driver) is left out.
func TestMergeKeepsWorkloadFinalLine(t *testing.T) {
	dir := t.TempDir()
	a, b := writeHostFiles(t, dir, 0), writeHostFiles(t, dir, 1)
	out := "   60.0s        0            3.0            3.0     20.0     20.0     20.0     20.0 newOrder\n\n" +
		histogram.FinalHeader + "\n   60.0s       90.0  35.0%     20.0     20.0     21.0     22.0     23.0     24.0\n"
	if err := os.WriteFile(WorkloadOutputFileFor(a), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, err := MergeFiles(20, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.WorkloadFinal) != 1 || r.WorkloadFinal[0].File != a || r.WorkloadFinal[0].TpmC != 90 || r.WorkloadFinal[0].Efficiency != 35 {
		t.Fatalf("workload final lines %+v, want host a's 90 tpmC 35 %%", r.WorkloadFinal)
	}
	if r.TpmC != 180 {
		t.Errorf("merged tpmC %v, want 180 (the merge is still the histograms')", r.TpmC)
	}
	doc, err := result.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, doc)
}
