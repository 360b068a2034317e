package rundir

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

func twoStages() []stages.Stage {
	step := func(host, what string) stages.Step {
		return stages.Step{Host: host, Kind: stages.Exec, What: what, Cmd: remote.Cmd{Args: []string{what}}}
	}
	return []stages.Stage{
		{Name: "install", Steps: []stages.Step{step("a", "a1"), step("a", "a2"), step("b", "b1")}},
		// Serial: b's failure must not cancel a's step under way.
		{Name: "run", Serial: true, Steps: []stages.Step{step("a", "a3"), step("b", "b2")}},
	}
}

// TestStateFollowsTheRun: the state observer records every step as the
// runner reports it, saved after each; a resume through the same state
// (its Progress) runs exactly the steps that did not finish.
func TestStateFollowsTheRun(t *testing.T) {
	dir := t.TempDir()
	list := twoStages()
	st := NewState(filepath.Join(dir, StateFile), "plan.yaml", "sum", StateOptions{}, list, time.Now())
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	rec := remote.NewRecorder()
	rec.Fail = func(e remote.Entry) error {
		if e.Host == "b" && strings.Contains(e.Text, "b2") {
			return &remote.ExitError{Host: "b", Code: 1}
		}
		return nil
	}
	r := &runner.Runner{Exec: rec, Observers: []runner.Observer{st}, Progress: st}
	if err := r.Run(context.Background(), list); err == nil {
		t.Fatal("the failing step did not fail the run")
	}
	saved, err := ReadState(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if s := saved.Stages[0]; s.Status != Done || s.Hosts[0].Done != 2 || s.Hosts[1].Status != Done {
		t.Errorf("install saved as %+v", s)
	}
	run := saved.Stages[1]
	if run.Status != Failed || run.Hosts[0].Status != Done || run.Hosts[1].Status != Failed || run.Hosts[1].Done != 0 || run.Hosts[1].Error == "" {
		t.Errorf("run saved as %+v", run)
	}
	if err := saved.Matches(list); err != nil {
		t.Fatal(err)
	}

	// Resume from the file: only b2 runs again.
	rec2 := remote.NewRecorder()
	r = &runner.Runner{Exec: rec2, Observers: []runner.Observer{saved}, Progress: saved}
	if err := r.Run(context.Background(), list); err != nil {
		t.Fatal(err)
	}
	if e := rec2.Entries(); len(e) != 1 || e[0].Host != "b" || !strings.Contains(e[0].Text, "b2") {
		t.Errorf("the resume ran %+v, want b2 alone", e)
	}
	if err := saved.Restart("run"); err != nil {
		t.Fatal(err)
	}
	if h := saved.Stages[1].Hosts[0]; h.Done != 0 || h.Attempt != 1 || saved.Stages[0].Status != Done {
		t.Errorf("after Restart: %+v", saved.Stages)
	}
}

// TestStateRefusesOtherPlans: a plan that compiles differently (another
// host, another step count) is refused, and so is a damaged or foreign
// state file.
func TestStateRefusesOtherPlans(t *testing.T) {
	dir := t.TempDir()
	list := twoStages()
	st := NewState(filepath.Join(dir, StateFile), "plan.yaml", "sum", StateOptions{}, list, time.Now())
	changed := twoStages()
	changed[1].Steps = changed[1].Steps[:1]
	if err := st.Matches(changed); err == nil {
		t.Error("a changed plan was accepted")
	}
	if err := st.Matches(list[:1]); err == nil {
		t.Error("fewer stages were accepted")
	}
	for name, text := range map[string]string{
		"truncated": `{"format": "benchrig-run-state/1", "stag`,
		"foreign":   `{"format": "something-else/3"}`,
	} {
		f := filepath.Join(dir, name+".json")
		os.WriteFile(f, []byte(text), 0o644)
		if _, err := ReadState(f); err == nil {
			t.Errorf("%s state file accepted", name)
		}
	}
}

// TestLock: a second orchestrator cannot drive a run directory that is
// locked; it can once the first lets go.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "in use by") {
		t.Errorf("second lock: %v", err)
	}
	release()
	release2, err := Lock(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release2()
}

// TestCreate: a run directory holds the plan's text; Open reads its state.
func TestCreate(t *testing.T) {
	runs := t.TempDir()
	dir, release, err := Create(runs, "local", []byte("version: 1\n"), time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC), bytes.NewReader([]byte{0xab, 0xcd, 0xef}))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if filepath.Base(dir) != "local-20261203-090000-abcdef" {
		t.Errorf("run directory %s", dir)
	}
	if _, err := Lock(dir); err == nil {
		t.Error("a new run directory is not locked")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, PlanFile)); string(b) != "version: 1\n" {
		t.Errorf("plan copy %q", b)
	}
	if _, err := Open(dir); err == nil {
		t.Error("Open without a state file succeeded")
	}
	st := NewState(filepath.Join(dir, StateFile), "p", "s", StateOptions{}, twoStages(), time.Now())
	st.Save()
	got, err := Open(dir)
	if err != nil || len(got.Stages) != 2 {
		t.Errorf("Open: %v, %v", got, err)
	}
	var sb strings.Builder
	if err := PrintStatus(&sb, got, false); err != nil || !strings.Contains(sb.String(), "install") {
		t.Errorf("status: %v\n%s", err, sb.String())
	}
}

// TestLogsScrubSecrets: a step's log never holds its secret, even when
// the command echoes it or fails with it in the message.
func TestLogsScrubSecrets(t *testing.T) {
	dir := t.TempDir()
	l := &Logs{Dir: dir}
	c := remote.Cmd{Args: []string{"sql"}, Stdin: "SET x = " + remote.Placeholder("k") + ";\n", Secrets: map[string]remote.Secret{"k": fixedSecret("hunter2")}}
	s := stages.Step{Host: "a", What: "set the key", Cmd: c}
	err := &runner.StepError{Stage: "configure", Host: "a", Step: "set the key", Err: errors.New("bad key hunter2")}
	l.Observe(runner.Event{Kind: runner.StepFailed, Stage: "configure", Host: "a", Step: s, Time: time.Now(),
		Result: remote.Result{Stdout: []byte("echo: hunter2\n")}, Err: err})
	b, rerr := os.ReadFile(filepath.Join(dir, "configure", "a.log"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), "echo: ") {
		t.Errorf("log:\n%s", b)
	}
}

type fixedSecret string

func (s fixedSecret) Name() string            { return "k" }
func (s fixedSecret) Reveal() (string, error) { return string(s), nil }

// TestList: runs newest first, each with the stage it stopped at; a
// directory without a state is listed with its error.
func TestList(t *testing.T) {
	runs := t.TempDir()
	if got, err := List(filepath.Join(runs, "none")); err != nil || got != nil {
		t.Errorf("missing runs dir: %v %v", got, err)
	}
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for i, failedAt := range []int{-1, 1} {
		dir, release, err := Create(runs, "p", nil, t0.Add(time.Duration(i)*time.Hour), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		release()
		st := NewState(filepath.Join(dir, StateFile), "plans/p.yaml", "s", StateOptions{}, twoStages(), t0.Add(time.Duration(i)*time.Hour))
		for k := range st.Stages {
			st.Stages[k].Status = Done
			if k == failedAt {
				st.Stages[k].Status = Failed
			}
		}
		st.Save()
	}
	half := filepath.Join(runs, "half-made")
	os.Mkdir(half, 0o755)
	os.Chtimes(half, t0.Add(-time.Hour), t0.Add(-time.Hour))
	got, err := List(runs)
	if err != nil {
		t.Fatal(err)
	}
	var status []string
	for _, r := range got {
		if r.Err != nil {
			status = append(status, "error")
			continue
		}
		status = append(status, r.Status)
	}
	if strings.Join(status, ",") != "run failed,done,error" {
		t.Errorf("listing %v", status)
	}
}
