package rundir

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestOutageInStateAndStatus: a host the runner redials is marked in the
// state (since, attempts, until when) and status says so; the mark goes
// when the host is back.
func TestOutageInStateAndStatus(t *testing.T) {
	step := stages.Step{Host: "load2", Kind: stages.Job, What: "run TPC-C", JobName: "run", Cmd: remote.Cmd{Args: []string{"true"}}}
	list := []stages.Stage{{Name: "run", Steps: []stages.Step{step}}}
	now := time.Now()
	st := NewState(filepath.Join(t.TempDir(), StateFile), "plan.yaml", "", StateOptions{}, list, now)
	ev := runner.Event{StageIndex: 0, Stage: "run", Host: "load2", Step: step}
	for _, e := range []runner.Event{
		{Kind: runner.StepStarted, Index: 0},
		{Kind: runner.HostUnreachable, Since: now.Add(-time.Minute), Attempt: 3, BudgetLeft: 9 * time.Minute, Err: errors.New("no reply to 3 keepalives")},
	} {
		x := ev
		x.Kind, x.Index, x.Since, x.Attempt, x.BudgetLeft, x.Err, x.Time = e.Kind, e.Index, e.Since, e.Attempt, e.BudgetLeft, e.Err, now
		if err := st.Observe(x); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadState(st.path)
	if err != nil {
		t.Fatal(err)
	}
	o := back.Stages[0].Hosts[0].Unreachable
	if o == nil || o.Attempts != 3 || !o.Until.Equal(now.Add(9*time.Minute).UTC()) {
		t.Fatalf("outage in the state file: %+v", o)
	}
	var b bytes.Buffer
	if err := PrintStatus(&b, back, false); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "host load2 unreachable since") || !strings.Contains(out, "retrying (3), budget left ") {
		t.Errorf("status:\n%s", out)
	}
	x := ev
	x.Kind, x.Time = runner.HostReconnected, now
	if err := st.Observe(x); err != nil {
		t.Fatal(err)
	}
	if st.Stages[0].Hosts[0].Unreachable != nil {
		t.Error("the outage mark stayed after the host came back")
	}
}
