package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// writeHist writes a histogram file of one host: n New-Orders per 1s
// tick over ticks ticks.
func writeHist(t *testing.T, dir, name string, n int64, ticks int, lat time.Duration) string {
	t.Helper()
	var buf bytes.Buffer
	enc := histogram.NewEncoder(&buf)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k := 1; k <= ticks; k++ {
		for _, op := range histogram.TPCCNames() {
			h := histogram.NewHistogram()
			if op == histogram.NewOrder {
				_ = h.RecordValues(lat.Nanoseconds(), n)
			}
			if err := enc.Encode(histogram.Tick{Name: op, Hist: histogram.Export(h), Elapsed: time.Second, Now: t0.Add(time.Duration(k) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTpccMergeCommand(t *testing.T) {
	dir := t.TempDir()
	// Two hosts, 60 s each, 1 New-Order/s each: 120 tpmC over 10
	// warehouses is 95.2% of 12.605 × 10.
	a := writeHist(t, dir, "w1.ndjson", 1, 60, 20*time.Millisecond)
	b := writeHist(t, dir, "w2.ndjson", 1, 60, 20*time.Millisecond)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"benchrig", "tpcc", "merge", "--warehouses", "10", "--check", a, b}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if want := "Duration: 1m0s, Warehouses: 10, Efficiency: 95.2, tpmC: 120.00\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output\n%s\nwant prefix %q", out.String(), want)
	}
	// --json writes the same merge as a tpcc.merge result.
	jsonPath := filepath.Join(dir, "merged.json")
	if code := run(context.Background(), []string{"benchrig", "tpcc", "merge", "--warehouses", "10", "--json", jsonPath, a, b}, &out, &errOut); code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	if m, err := result.ReadResult(jsonPath); err != nil || m.Kind != result.KindMerge || m.TpmC != 120 || !m.Pass {
		t.Errorf("--json: %+v, %v; want a passing tpcc.merge at 120 tpmC", m, err)
	}
	// The same files against 20 warehouses fail the 85% efficiency check.
	out.Reset()
	code = run(context.Background(), []string{"benchrig", "tpcc", "merge", "--warehouses", "20", "--check", a, b}, &out, &errOut)
	if code != exitCheck {
		t.Errorf("low efficiency: exit %d, want %d", code, exitCheck)
	}
	code = run(context.Background(), []string{"benchrig", "tpcc", "merge", "--warehouses", "10", filepath.Join(dir, "missing")}, &out, &errOut)
	if code == exitOK {
		t.Error("missing file: exit 0")
	}
	code = run(context.Background(), []string{"benchrig", "tpcc", "run", "--wait", "soon", "postgres://127.0.0.1:1/x"}, &out, &errOut)
	if code != exitUsage {
		t.Errorf("bad --wait: exit %d, want %d", code, exitUsage)
	}
}

// TestTpccRunTicksFlag: the --ticks extension picks the format; another
// is a usage error before any connection is tried.
func TestTpccRunTicksFlag(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"benchrig", "tpcc", "run", "--ticks", filepath.Join(dir, "t.json"), "postgres://127.0.0.1:1/x"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), ".jsonl, .ndjson or .csv") {
		t.Errorf("--ticks t.json: exit %d, %q; want %d naming the extensions", code, errOut.String(), exitUsage)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.json")); !os.IsNotExist(err) {
		t.Errorf("--ticks t.json was created: %v", err)
	}
}

// TestTpccRunProfileFlag: an unknown --profile is a usage error naming
// the profiles, before any connection is tried.
func TestTpccRunProfileFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"benchrig", "tpcc", "run", "--profile", "fast", "postgres://127.0.0.1:1/x"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "want workload, pipelined or functions") {
		t.Errorf("--profile fast: exit %d, %q; want %d naming the profiles", code, errOut.String(), exitUsage)
	}
}
