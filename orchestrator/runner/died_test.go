package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestMeasuredRunDied runs real detached jobs that die in each way a
// measured run can, and some that do not die: a death (a signal, or the
// job's whole process group gone without an exit record) is recorded,
// the stage and the next ones go on (a file the dead job never wrote is
// not fetched, and that is no error), and the run ends with an
// *IncompleteError naming host, stage, step, reason and how to measure
// again. A job that exits with its own status fails or passes as before,
// and outside a measured window a killed job is still a failure.
func TestMeasuredRunDied(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		window bool
		died   string // the Death's reason; "" none
		err    string // else: the run's error has this
	}{
		{name: "SIGKILL", script: `kill -9 $$`, window: true, died: "killed (SIGKILL)"},
		{name: "SIGTERM", script: `kill -TERM $$`, window: true, died: "killed (SIGTERM)"},
		{name: "group killed", script: `kill -9 0`, window: true, died: "vanished without exit status"},
		{name: "own exit status", script: `exit 3`, window: true, err: "exited with status 3"},
		{name: "audit failure", script: `exit 30`, window: true, err: "benchmark checks failed"},
		{name: "not a measured run", script: `kill -9 $$`, err: "137"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			job := stages.Step{Host: "h", Kind: stages.Job, What: "run TPC-C", JobName: "run", JobDir: dir + "/jobs", CheckExit: 30,
				Cmd: remote.Cmd{Args: []string{"sh", "-c", "echo measuring; " + tc.script}}}
			if tc.window {
				job.Window = "workload1.histogram.ndjson"
			}
			steps := []stages.Step{job}
			if tc.died != "" {
				// The run result a dead job never wrote.
				steps = append(steps, stages.Step{Host: "h", Kind: stages.Get, What: "download", Phase: 1,
					Transfer: remote.Transfer{Remote: filepath.Join(dir, "workload1.result.json"), Local: filepath.Join(dir, "got.json")}})
			}
			var said []string
			r := &Runner{Exec: remote.NewLocal(remote.LocalConfig{}), JobTag: "r1", Observers: []Observer{ObserverFunc(func(e Event) error {
				if e.Kind == Message {
					said = append(said, e.Text)
				}
				if e.Kind == StepDone && e.Died != nil && !strings.Contains(string(e.Result.Stdout), "measuring") {
					t.Errorf("the died step's output lacks the job's log: %q", e.Result.Stdout)
				}
				return nil
			})}}
			err := r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: steps}})
			var ie *IncompleteError
			if tc.died == "" {
				if errors.As(err, &ie) || err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want a failure with %q", err, tc.err)
				}
				return
			}
			if !errors.As(err, &ie) || len(ie.Deaths) != 1 {
				t.Fatalf("err %v, want an IncompleteError with one death", err)
			}
			d := ie.Deaths[0]
			if d.Host != "h" || d.Stage != "run" || d.Step != "run TPC-C" || d.Job != "run.r1" || !strings.HasPrefix(d.Reason, tc.died) {
				t.Errorf("death %+v, want h/run/run TPC-C/run.r1 %s", d, tc.died)
			}
			ie.RunDir = "/runs/x"
			for _, want := range []string{"stage run: host h: run TPC-C: job run.r1 " + tc.died, "marked incomplete", "benchrig resume --from run /runs/x"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q lacks %q", err, want)
				}
			}
			if !strings.Contains(strings.Join(said, "\n"), "workload1.result.json was not written (job run.r1 "+tc.died) {
				t.Errorf("nothing said of the file the dead job never wrote: %q", said)
			}
		})
	}
}

// TestMeasuredRunFoundDead: a resumed run (the same job name) finds its
// measured run's job dead, its whole process group killed while the
// orchestrator was away: it is recorded as died and not started again
// alone; a job outside a measured window (an import) is started again
// as before.
func TestMeasuredRunFoundDead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		window  bool
		restart bool
	}{
		{name: "measured run", window: true},
		{name: "import", restart: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ex := remote.NewLocal(remote.LocalConfig{})
			ctx := context.Background()
			cmd := remote.Cmd{Args: []string{"sh", "-c", "echo measuring; sleep 0.5"}}
			j, err := remote.StartJob(ctx, ex, "h", dir+"/jobs", "run.r1", remote.Cmd{Args: []string{"sh", "-c", "echo measuring; sleep 30"}})
			if err != nil {
				t.Fatal(err)
			}
			st, err := j.Status(ctx, ex)
			if err != nil || st.State != remote.JobRunning {
				t.Fatalf("%+v, %v", st, err)
			}
			if err := syscall.Kill(-st.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); st.State != remote.JobLost; time.Sleep(50 * time.Millisecond) {
				if st, err = j.Status(ctx, ex); err != nil || time.Now().After(deadline) {
					t.Fatalf("the killed job is %+v, %v", st, err)
				}
			}
			step := stages.Step{Host: "h", Kind: stages.Job, What: "run TPC-C", JobName: "run", JobDir: dir + "/jobs", Cmd: cmd}
			if tc.window {
				step.Window = "workload1.histogram.ndjson"
			}
			var said []string
			r := &Runner{Exec: ex, JobTag: "r1", Observers: []Observer{ObserverFunc(func(e Event) error {
				if e.Kind == Message {
					said = append(said, e.Text)
				}
				return nil
			})}}
			err = r.Run(ctx, []stages.Stage{{Name: "run", Steps: []stages.Step{step}}})
			restarted := strings.Contains(strings.Join(said, "\n"), "starting it again")
			var ie *IncompleteError
			switch {
			case restarted != tc.restart:
				t.Errorf("restarted %v, want %v: %q", restarted, tc.restart, said)
			case tc.window && (!errors.As(err, &ie) || !strings.HasPrefix(ie.Deaths[0].Reason, "vanished without exit status")):
				t.Errorf("err %v, want the host incomplete", err)
			case !tc.window && err != nil:
				t.Errorf("the import started again failed: %v", err)
			}
		})
	}
}
