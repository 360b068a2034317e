package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestDetachedJobThenStop runs a sampler-like job beside the next steps
// (a detached job is not waited for) and stops it after them, on real
// processes: the job writes until it is stopped, and stopping it again (a
// resume) is harmless.
func TestDetachedJobThenStop(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ticks")
	ex := remote.NewLocal(remote.LocalConfig{})
	detach := stages.Step{Host: "h", Kind: stages.Job, JobMode: stages.JobDetach, What: "start ticking",
		JobName: "tick", JobDir: dir + "/jobs",
		Cmd: remote.Cmd{Args: []string{"sh", "-c", `while :; do echo x >>"$1"; sleep 0.05; done`, "sh", out}}}
	stop := stages.Step{Host: "h", Kind: stages.Job, JobMode: stages.JobStop, What: "stop ticking",
		JobName: "tick", JobDir: dir + "/jobs", Phase: 2}
	mid := stages.Step{Host: "h", Kind: stages.Exec, What: "meanwhile", Phase: 1, Cmd: remote.Cmd{Args: []string{"sleep", "0.3"}}}
	r := &Runner{Exec: ex, JobTag: "run1"}
	started := time.Now()
	if err := r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: []stages.Step{detach, mid, stop}}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(started); d > 15*time.Second {
		t.Errorf("the stage took %s: the detached job was waited for", d)
	}
	j := remote.Job{Host: "h", Dir: dir + "/jobs", Name: "tick.run1"}
	st, err := j.Status(context.Background(), ex)
	if err != nil {
		t.Fatal(err)
	}
	if st.State == remote.JobRunning {
		t.Fatalf("the job still runs after its stop step: %+v", st)
	}
	data, _ := os.ReadFile(out)
	if len(data) == 0 {
		t.Fatal("the detached job never ran")
	}
	time.Sleep(200 * time.Millisecond)
	if again, _ := os.ReadFile(out); len(again) != len(data) {
		t.Error("the job kept writing after it was stopped")
	}
	// A resumed stage stops it again: a no-op.
	if err := r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: []stages.Step{stop}}}); err != nil {
		t.Fatalf("stopping a stopped job: %v", err)
	}
}

// TestDetachLeavesARunningJob: a resume that reaches a detached start
// whose job is still running leaves it alone instead of failing on a
// second copy.
func TestDetachLeavesARunningJob(t *testing.T) {
	dir := t.TempDir()
	ex := remote.NewLocal(remote.LocalConfig{})
	detach := stages.Step{Host: "h", Kind: stages.Job, JobMode: stages.JobDetach, What: "start",
		JobName: "long", JobDir: dir, Cmd: remote.Cmd{Args: []string{"sleep", "30"}}}
	stop := detach
	stop.JobMode, stop.Cmd, stop.Phase = stages.JobStop, remote.Cmd{}, 1
	r := &Runner{Exec: ex}
	st := []stages.Stage{{Name: "run", Steps: []stages.Step{detach}}}
	if err := r.Run(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), st); err != nil {
		t.Fatalf("second start of a running detached job: %v", err)
	}
	if err := r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: []stages.Step{stop}}}); err != nil {
		t.Fatal(err)
	}
}
