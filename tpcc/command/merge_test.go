package command

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
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
		a, b := resulttest.WriteHostFiles(t, dir, 0), resulttest.WriteHostFiles(t, filepath.Join(dir, "load2"), 0)
		if died {
			d := result.Died{Header: envelope.New(result.KindDied), Host: "load2", Stage: "run", Step: "run TPC-C", Job: "run.x", Reason: "killed (SIGKILL)", WindowSeconds: 60}
			if err := envelope.WriteFile(result.DiedFileFor(b), d); err != nil {
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
