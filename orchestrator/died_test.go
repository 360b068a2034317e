package orchestrator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestDiedRecords: a measured run's death leaves the tpcc.died record
// where collect puts the host's histogram (what merge reads); the same
// step starting again (resume --from run) removes it first; other steps'
// events leave nothing.
func TestDiedRecords(t *testing.T) {
	dir := t.TempDir()
	o := &diedRecords{runDir: dir, window: 8}
	step := stages.Step{Host: "load1", Kind: stages.Job, What: "run TPC-C", Window: "workload1.histogram.ndjson"}
	hist := filepath.Join(dir, "results", "load1", "workload1.histogram.ndjson")
	d := runner.Death{Stage: "run", Host: "load1", Step: "run TPC-C", Job: "run.x", Window: step.Window, Reason: "killed (SIGKILL)"}
	for _, tc := range []struct {
		name   string
		ev     runner.Event
		record bool // a record exists afterwards
	}{
		{"another step", runner.Event{Kind: runner.StepDone, Host: "load1", Step: stages.Step{Host: "load1", What: "import"}, Died: &d}, false},
		{"finished", runner.Event{Kind: runner.StepDone, Host: "load1", Step: step}, false},
		{"died", runner.Event{Kind: runner.StepDone, Host: "load1", Step: step, Died: &d}, true},
		{"measured again", runner.Event{Kind: runner.StepStarted, Host: "load1", Step: step}, false},
		{"starting again without a record", runner.Event{Kind: runner.StepStarted, Host: "load1", Step: step}, false},
	} {
		if err := o.Observe(tc.ev); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := result.ReadDied(hist)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if (got != nil) != tc.record {
			t.Fatalf("%s: record %+v, want one: %v", tc.name, got, tc.record)
		}
		if got != nil && (got.Host != "load1" || got.Reason != "killed (SIGKILL)" || got.Job != "run.x" || got.WindowSeconds != 8) {
			t.Errorf("%s: record %+v", tc.name, got)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "results", "load1")); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
