package command

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// TestMergeCheckRefusesIncomplete: tpcc merge --check judges a complete
// merge by its figures, and refuses one with a died host as incomplete
// (exit 40 in cmd), never passing it on the figures that remain.
func TestMergeCheckRefusesIncomplete(t *testing.T) {
	for _, died := range []bool{false, true} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "load2"), 0o755); err != nil {
			t.Fatal(err)
		}
		a, b := writeHostFiles(t, dir, 0), writeHostFiles(t, filepath.Join(dir, "load2"), 0)
		if died {
			d := tpcc.Died{Header: result.New(tpcc.KindDied), Host: "load2", Stage: "run", Step: "run TPC-C", Job: "run.x", Reason: "killed (SIGKILL)", WindowSeconds: 60}
			if err := result.WriteFile(tpcc.DiedFileFor(b), d); err != nil {
				t.Fatal(err)
			}
		}
		var out strings.Builder
		err := MergeArgs{Files: []string{a, b}, Warehouses: 20, Check: true}.Run(&out)
		var ie *IncompleteError
		if got := errors.As(err, &ie); got != died {
			t.Errorf("died %v: err %v", died, err)
		}
		if died && (!strings.Contains(err.Error(), "load2 killed (SIGKILL)") || !strings.Contains(out.String(), "INCOMPLETE: load2")) {
			t.Errorf("err %v, output:\n%s", err, out.String())
		}
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
