package orchestrator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/tpcc/result"
)

// IncompleteError ends a run whose measured runs died on some workload
// hosts: it was collected and merged, marked incomplete.
type IncompleteError = runner.IncompleteError

// diedRecords leaves a tpcc.died record beside where collect puts a dead
// measured run's histogram file (results/<host>/workload1.died.json), so
// the merge, the report and check-result name the host incomplete. A
// measured run that starts again (resume --from run) removes its record
// first.
type diedRecords struct {
	runDir string
	window float64 // the planned measured window, seconds
}

func (o *diedRecords) Observe(e runner.Event) error {
	if e.Step.Window == "" || e.Host == "" {
		return nil
	}
	path := filepath.Join(o.runDir, "results", e.Host, result.DiedFileFor(e.Step.Window))
	switch {
	case e.Kind == runner.StepStarted:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("host %s: %w", e.Host, err)
		}
	case e.Kind == runner.StepDone && e.Died != nil:
		d := e.Died
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("host %s: %w", e.Host, err)
		}
		return envelope.WriteFile(path, result.Died{Header: envelope.New(result.KindDied), Host: d.Host, Stage: d.Stage, Step: d.Step,
			Job: d.Job, Reason: d.Reason, WindowSeconds: o.window})
	}
	return nil
}
