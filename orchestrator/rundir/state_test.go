package rundir

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// TestNewRunDirSameSecond: two runs started in the same second get two
// directories, even when the random suffix repeats (mkdir refuses the
// second, and another suffix is drawn).
func TestNewRunDirSameSecond(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	// The same three bytes twice, then others.
	rnd := bytes.NewReader([]byte{1, 2, 3, 1, 2, 3, 4, 5, 6})
	a, err := NewRunDir(runs, "tpcc", now, rnd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewRunDir(runs, "tpcc", now, rnd)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("two runs in the same second share %s", a)
	}
	for _, d := range []string{a, b} {
		if !strings.HasPrefix(filepath.Base(d), "tpcc-20261203-080000-") {
			t.Errorf("run directory %s is not named by plan and time", d)
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			t.Errorf("%s: %v", d, err)
		}
	}
	if filepath.Base(a) != "tpcc-20261203-080000-010203" || filepath.Base(b) != "tpcc-20261203-080000-040506" {
		t.Errorf("directories %s, %s", a, b)
	}
	// Only repeats: a bounded number of tries, then an error.
	if d, err := NewRunDir(runs, "tpcc", now, bytes.NewReader(bytes.Repeat([]byte{1, 2, 3}, 100))); err == nil {
		t.Errorf("a name that always exists gave %s", d)
	}
}

// TestLockNamesHolder: a second Lock of a held run directory is refused
// with the holder's pid; once released (or its holder gone, which drops
// an flock), a lock file left behind does not block.
func TestLockNamesHolder(t *testing.T) {
	dir := t.TempDir()
	// A lock file left by a dead process: a pid, but no flock on it.
	if err := os.WriteFile(filepath.Join(dir, "lock"), []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := Lock(dir)
	if err != nil {
		t.Fatalf("a stale lock file blocked: %v", err)
	}
	_, err = Lock(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.Pid != os.Getpid() || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v, want refused naming pid %d", err, os.Getpid())
	}
	release()
	release, err = Lock(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release()
}

// TestStateChanges: a state records each step's digest; a plan that
// compiles to other commands is reported by stage, host and step.
func TestStateChanges(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	p, err := plan.LoadPlan("../../plans/tpcc-10.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opt := stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"}
	compiled, err := stages.Compile(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	st := NewState(filepath.Join(t.TempDir(), "state.json"), "plan.yaml", "sum", StateOptions{}, compiled, time.Now())
	again, _ := stages.Compile(p, opt)
	if err := st.Matches(again); err != nil {
		t.Fatal(err)
	}
	if ch := st.Changes(again); len(ch) != 0 {
		t.Fatalf("the same plan compiled twice differs: %v", ch)
	}
	// Every host finished its first step of every stage.
	for i := range st.Stages {
		for k := range st.Stages[i].Hosts {
			st.Stages[i].Hosts[k].Done = 1
		}
	}
	// The same shape, another command: another store directory.
	for i := range p.Nodes {
		p.Nodes[i].Dir += "-other"
	}
	changed, err := stages.Compile(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Matches(changed); err != nil {
		t.Fatalf("the changed plan should have the same shape: %v", err)
	}
	ch := st.Changes(changed)
	text := strings.Join(ch, "\n")
	t.Logf("changes:\n%s", text)
	if len(ch) == 0 || !strings.Contains(text, "stage start, hosts ") || !strings.Contains(text, "finished step") {
		t.Fatalf("changes:\n%s", text)
	}
	if err := st.Rebase(changed, "newsum"); err != nil {
		t.Fatal(err)
	}
	if ch := st.Changes(changed); len(ch) != 0 || st.PlanSum != "newsum" {
		t.Errorf("after Rebase: %v, sum %s", ch, st.PlanSum)
	}
}
