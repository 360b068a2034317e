package rundir

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// TestStateRecordsDeath: a measured run's death is kept in state.json for
// its host and stage (read back from the file), given to a resumed
// runner, shown by status, and cleared by resume --from the stage.
func TestStateRecordsDeath(t *testing.T) {
	p, err := plan.LoadPlan("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	st := NewState(path, "plan.yaml", "sum", StateOptions{}, compiled, time.Now())
	run := -1
	for i, s := range compiled {
		if s.Name == "run" {
			run = i
		}
	}
	var job stages.Step
	index := 0
	for _, s := range compiled[run].Steps {
		if s.Host == "load1" {
			if s.Window != "" {
				job = s
				break
			}
			index++
		}
	}
	d := runner.Death{Stage: "run", Host: "load1", Step: job.What, Job: "run.x", Window: job.Window, Reason: "killed (SIGKILL)"}
	for _, e := range []runner.Event{
		{Kind: runner.StepStarted, StageIndex: run, Host: "load1", Step: job, Index: index},
		{Kind: runner.StepDone, StageIndex: run, Host: "load1", Step: job, Index: index, Died: &d},
		{Kind: runner.StepDone, StageIndex: run, Host: "load2", Step: job, Index: index},
	} {
		if err := st.Observe(e); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadState(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Deaths(); len(got) != 1 || got[0] != d {
		t.Fatalf("deaths read back %+v, want %+v", got, d)
	}
	var out bytes.Buffer
	if err := PrintStatus(&out, back, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "run on load1: INCOMPLETE: run TPC-C: job run.x killed (SIGKILL) (measure again with benchrig resume --from run)") {
		t.Errorf("status does not show the death:\n%s", out.String())
	}
	if err := st.Restart("run"); err != nil {
		t.Fatal(err)
	}
	if got := st.Deaths(); len(got) != 0 {
		t.Errorf("deaths after resume --from run: %+v", got)
	}
}
