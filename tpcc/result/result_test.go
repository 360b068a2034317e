package result_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

// schemaDir is docs/schema, from this package.
const schemaDir = "../../docs/schema"

func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	resulttest.CheckSchema(t, schemaDir, doc)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name+".golden", []byte(got))
}

func writeHostFiles(t *testing.T, dir string, k int) string {
	t.Helper()
	return resulttest.WriteHostFiles(t, dir, k)
}

func TestResultFileFor(t *testing.T) {
	for in, want := range map[string]string{
		"workload1.histogram.ndjson":               "workload1.result.json",
		"workload2.workers-40.r2.histogram.ndjson": "workload2.workers-40.r2.result.json",
		"/tmp/h.ndjson":                            "/tmp/h.ndjson.result.json",
	} {
		if got := result.ResultFileFor(in); got != want {
			t.Errorf("ResultFileFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMergeFiles checks the merge formulas, the series and the errors
// summed from the hosts' run results, and pins the merged JSON.
func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := writeHostFiles(t, dir, 0), writeHostFiles(t, dir, 1)
	for k, path := range []string{a, b} {
		run := &result.Result{Header: envelope.New(result.KindRun)}
		for ty, name := range histogram.TPCCNames() { // tpcc's TxnType order
			e, r := int64(k), int64(10*k+ty)
			lost, backoff := float64(100*k+10*ty), float64(10*k+ty)
			run.Transactions = append(run.Transactions, result.Txn{Name: name, Errors: &e, Retries: &r,
				RetryLostMs: &lost, RetryBackoffMs: &backoff})
		}
		if err := result.WriteResult(result.ResultFileFor(path), run); err != nil {
			t.Fatal(err)
		}
	}
	r, m, err := result.MergeFiles(20, a, b)
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
	doc, err := envelope.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "result_merge.json", string(doc))
	checkSchema(t, doc)

	// Without one host's run result, errors and retries are unknown.
	os.Remove(result.ResultFileFor(b))
	r, _, err = result.MergeFiles(20, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Transactions[0].Errors != nil || r.Transactions[0].Retries != nil {
		t.Errorf("errors %v retries %v without host b's result, want null", r.Transactions[0].Errors, r.Transactions[0].Retries)
	}
	doc, _ = envelope.Marshal(r)
	checkSchema(t, doc)

	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, "no histogram file"},
		{[]string{filepath.Join(dir, "missing.ndjson")}, "missing.ndjson"},
	} {
		if _, _, err := result.MergeFiles(2, tc.files...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.files, err, tc.want)
		}
	}
	// Different warehouse counts per file cannot happen through MergeFiles;
	// a file of another kind is refused by ReadResult.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"schema":"benchrig.result/v1","kind":"crud"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := result.ReadResult(other); err == nil {
		t.Error("ReadResult accepted a crud result")
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
	if err := os.WriteFile(result.WorkloadOutputFileFor(a), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _, err := result.MergeFiles(20, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.WorkloadFinal) != 1 || r.WorkloadFinal[0].File != a || r.WorkloadFinal[0].TpmC != 90 || r.WorkloadFinal[0].Efficiency != 35 {
		t.Fatalf("workload final lines %+v, want host a's 90 tpmC 35 %%", r.WorkloadFinal)
	}
	if r.TpmC != 180 {
		t.Errorf("merged tpmC %v, want 180 (the merge is still the histograms')", r.TpmC)
	}
	doc, err := envelope.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, doc)
}
