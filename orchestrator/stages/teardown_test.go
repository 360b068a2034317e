package stages

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// TestJobsStopScript runs the teardown's job stop through sh on real
// processes: a running job of the directory is stopped, a finished one
// and a pid that is not a benchrig job (no marker) are left alone, and a
// second run finds nothing to stop.
func TestJobsStopScript(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ex := remote.NewLocal(remote.LocalConfig{})
	j, err := remote.StartJob(ctx, ex, "h", dir, "run.x", remote.Cmd{Args: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := remote.StartJob(ctx, ex, "h", dir, "done.x", remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
	// A foreign process under a stale pid file.
	stranger, err := os.StartProcess("/bin/sleep", []string{"sleep", "60"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Kill()
	if err := os.WriteFile(filepath.Join(dir, "stale.pid"), []byte(strconv.Itoa(stranger.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // done.x records its exit
	stop := remote.Cmd{Args: []string{"sh", "-c", jobsStopScript, "sh", dir, "5"}}
	res, err := ex.Run(ctx, "h", stop)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Stdout)
	}
	if !strings.Contains(string(res.Stdout), "stopping job run.x") || strings.Contains(string(res.Stdout), "done.x") || strings.Contains(string(res.Stdout), "stale") {
		t.Errorf("output:\n%s", res.Stdout)
	}
	st, err := j.Status(ctx, ex)
	if err != nil || st.State == remote.JobRunning {
		t.Errorf("job still running after teardown: %+v %v", st, err)
	}
	if err := stranger.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the foreign process was stopped: %v", err)
	}
	res, err = ex.Run(ctx, "h", stop)
	if err != nil || !strings.Contains(string(res.Stdout), "no job running") {
		t.Errorf("second stop: %v\n%s", err, res.Stdout)
	}
	// A host without a jobs directory (never installed).
	if res, err := ex.Run(ctx, "h", remote.Cmd{Args: []string{"sh", "-c", jobsStopScript, "sh", filepath.Join(dir, "none"), "5"}}); err != nil {
		t.Errorf("no jobs directory: %v\n%s", err, res.Stdout)
	}
}

// TestWipeable: teardown --wipe never removes a home, the root, a
// top-level directory or a path that climbs out.
func TestWipeable(t *testing.T) {
	for _, p := range []string{"", ".", "./", "/", "/var", "/home/", "..", "../x", "a/../../b", "/srv/../etc"} {
		if wipeable(p) == nil {
			t.Errorf("wipeable(%q) = nil", p)
		}
	}
	for _, p := range []string{"benchrig", "benchrig-local/db1/pgdata", "/mnt/data1/cockroach", "/var/lib/benchrig"} {
		if err := wipeable(p); err != nil {
			t.Errorf("wipeable(%q): %v", p, err)
		}
	}
}

// TestTeardownCompiles: --only teardown works on a plan that does not
// list it; wipe adds the removals; a plan whose work directory is the
// home is refused for --wipe only.
func TestTeardownCompiles(t *testing.T) {
	p, err := plan.LoadPlan("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{Only: []string{"teardown"}})
	if err != nil || len(list) != 1 || list[0].Name != "teardown" || len(list[0].Steps) != 5+3 {
		t.Fatalf("teardown: %v, %+v", err, list)
	}
	list, err = Compile(p, Options{Only: []string{"teardown"}, Wipe: true})
	if err != nil || len(list[0].Steps) != 5+3+5 {
		t.Fatalf("teardown --wipe: %v, %d steps", err, len(list[0].Steps))
	}
	if all, _ := Compile(p, Options{}); all[len(all)-1].Name == "teardown" {
		t.Error("teardown runs by default")
	}
	p.Workload[0].Dir = "."
	if _, err := Compile(p, Options{Only: []string{"teardown"}, Wipe: true}); err == nil || !strings.Contains(err.Error(), "load1") {
		t.Errorf("wiping the home directory: %v", err)
	}
}
