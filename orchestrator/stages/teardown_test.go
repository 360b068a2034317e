package stages

import (
	"context"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
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

// TestWipeOverSSH runs the compiled install and teardown --wipe steps
// against a real sshd on loopback: the work directory benchrig created
// (marked) is removed; a store that existed before (no marker) is named
// and left with its contents; the login's home, a directory holding it,
// and a symbolic link to it are refused even with a marker planted; a
// plan whose dir is the home is refused at validation and at compile.
func TestWipeOverSSH(t *testing.T) {
	l := sshtest.StartT(t, 1)
	ctx := context.Background()
	ex, err := remote.NewSSH(l.Targets(), remote.SSHConfig{KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true,
		SSHConfigFile: "none", ConnectTimeout: 10 * time.Second, KillGrace: 2 * time.Second, RetryBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	host, base := l.Name(0), l.HostDir(0)
	run := func(c remote.Cmd) (string, error) {
		t.Helper()
		res, err := ex.Run(ctx, host, c)
		return string(res.Stdout) + string(res.Stderr), err
	}
	// A store that is not benchrig's: it exists, with data, before install.
	foreign := filepath.Join(base, "foreign")
	if out, err := run(remote.Cmd{Args: []string{"sh", "-c", `mkdir -p "$1" && echo data >"$1/keep"`, "sh", foreign}}); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	text := strings.NewReplacer("NAME", host, "BASE", base).Replace(`version: 1
name: wipe
flavor: cockroach
nodes:
  - name: NAME
    dir: BASE/work
    store: BASE/foreign
binaries:
  database: {url: "https://example.invalid/c", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
  install_path: BASE/cockroach
tpcc: {warehouses: 1}
stages: [install]
`)
	p, err := plan.ParsePlan("wipe.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{DriverPath: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	mkdir := list[0].Steps[0]
	if !strings.HasPrefix(mkdir.What, "create work directory") {
		t.Fatalf("first install step: %s", mkdir.What)
	}
	for i := 0; i < 2; i++ { // a resumed install finds its marker
		out, err := run(mkdir.Cmd)
		if err != nil || !strings.Contains(out, "using "+foreign+", which benchrig did not create") {
			t.Fatalf("install: %v: %s", err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "work", OwnedMarker)); err != nil {
		t.Fatalf("the work directory has no marker: %v", err)
	}
	if _, err := os.Stat(filepath.Join(foreign, OwnedMarker)); err == nil {
		t.Fatal("a directory benchrig did not create was marked")
	}
	list, err = Compile(p, Options{Only: []string{"teardown"}, Wipe: true})
	if err != nil {
		t.Fatal(err)
	}
	wipe := list[0].Steps[len(list[0].Steps)-1]
	if !strings.Contains(wipe.What, foreign) || !strings.Contains(wipe.What, base+"/work") {
		t.Errorf("the wipe step does not list what it may remove: %s", wipe.What)
	}
	out, err := run(wipe.Cmd)
	if err != nil || !strings.Contains(out, "removed "+base+"/work") || !strings.Contains(out, "left "+foreign+": no "+OwnedMarker) {
		t.Errorf("wipe: %v: %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(base, "work")); err == nil {
		t.Error("the work directory benchrig made is still there")
	}
	if _, err := os.Stat(filepath.Join(foreign, "keep")); err != nil {
		t.Errorf("the foreign store lost its data: %v", err)
	}

	// The home: a stand-in (HOME points at it) holding a planted marker,
	// a directory holding it, a link to it, and "." (the real home).
	home := filepath.Join(base, "up", "home")
	for _, d := range []string{home, filepath.Join(base, "up")} {
		if out, err := run(remote.Cmd{Args: []string{"sh", "-c", `mkdir -p "$1" && echo x >"$1/` + OwnedMarker + `"`, "sh", d}}); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	if out, err := run(remote.Cmd{Args: []string{"ln", "-s", home, filepath.Join(base, "tohome")}}); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, d := range []string{home, filepath.Join(base, "up"), home + "/.", filepath.Join(base, "tohome")} {
		out, err := run(remote.Cmd{Env: map[string]string{"HOME": home}, Args: []string{"sh", "-c", wipeScript, "sh", d}})
		if _, serr := os.Stat(filepath.Join(home, OwnedMarker)); serr != nil {
			t.Fatalf("wipe of %s removed the home: %v: %s", d, err, out)
		}
		if !strings.Contains(out, "refused") && !strings.Contains(out, "left") {
			t.Errorf("wipe of %s: %v: %s", d, err, out)
		}
	}
	out, err = run(remote.Cmd{Args: []string{"sh", "-c", wipeScript, "sh", "."}})
	if err == nil || !strings.Contains(out, "refused .: ") {
		t.Errorf("wipe of the real home: %v: %s", err, out)
	}

	// The plan: its dir is the login's home.
	u, _ := user.Lookup(l.User())
	for _, dir := range []string{".", u.HomeDir} {
		_, err := plan.ParsePlan("wipe.yaml", []byte(strings.Replace(text, "dir: "+base+"/work", "dir: "+dir, 1)))
		if err == nil || !strings.Contains(err.Error(), "wipe.yaml:6:10: nodes[0].dir") {
			t.Errorf("dir %s: %v", dir, err)
		}
	}
	p.Nodes[0].Dir = "."
	if _, err := Compile(p, Options{Only: []string{"teardown"}, Wipe: true}); err == nil {
		t.Error("a wipe of the home compiled")
	}
}

// TestClusterStopPhases: teardown stops a CockroachDB cluster as the
// release's documentation stops a test cluster, on v20.1 and v25.4
// alike: no node is drained (a drain after quorum is lost waits out
// --drain-wait), every node gets its SIGTERM in one phase before any
// waits for its node, and the wait kills a node the release's grace
// after its SIGTERM.
func TestClusterStopPhases(t *testing.T) {
	for _, version := range []string{"v20.1", "v25.4"} {
		t.Run(version, func(t *testing.T) {
			p := releasePlan(t, version)
			list, err := Compile(p, Options{Only: []string{"teardown"}})
			if err != nil {
				t.Fatal(err)
			}
			signal, reap := map[string]int{}, map[string]int{}
			for _, s := range list[0].Steps {
				args := strings.Join(s.Cmd.Args, " ")
				switch {
				case strings.Contains(args, "drain") || strings.Contains(args, " quit "):
					t.Errorf("%s: %s drains at teardown: %s", version, s.Host, s.What)
				case slices.Contains(s.Cmd.Args, crdbSignalScript):
					signal[s.Host] = s.Phase
				case slices.Contains(s.Cmd.Args, crdbReapScript):
					reap[s.Host] = s.Phase
					if s.Cmd.Args[len(s.Cmd.Args)-1] != "60" {
						t.Errorf("%s: grace %v", s.Host, s.Cmd.Args)
					}
				}
			}
			if len(signal) != len(p.Nodes) || len(reap) != len(p.Nodes) {
				t.Fatalf("signals %v, waits %v for %d nodes", signal, reap, len(p.Nodes))
			}
			first := signal[p.Nodes[0].Name]
			for _, h := range p.Nodes {
				if signal[h.Name] != first || reap[h.Name] != first+1 {
					t.Errorf("%s: signal in phase %d, wait in %d; want every signal in phase %d, every wait after", h.Name, signal[h.Name], reap[h.Name], first)
				}
			}
		})
	}
}

// TestClusterStopScripts runs the two halves of the cluster stop through
// sh on real processes: a node exits on SIGTERM; one that ignores it is
// killed once the grace since its SIGTERM has passed (not since the
// wait began); a wait for a node never signalled signals it; a node not
// running is fine for both halves.
func TestClusterStopScripts(t *testing.T) {
	run := func(script string, args ...string) string {
		t.Helper()
		out, err := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	wait := func(done <-chan struct{}) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the node still runs")
		}
	}
	dir := t.TempDir()
	pidf := filepath.Join(dir, "a.pid")
	done := victim(t, pidf, false)
	if out := run(crdbSignalScript, pidf); !strings.Contains(out, "SIGTERM sent") {
		t.Errorf("signal: %s", out)
	}
	if out := run(crdbReapScript, pidf, "30"); !strings.Contains(out, "stopped") && !strings.Contains(out, "not running") {
		t.Errorf("wait: %s", out)
	}
	wait(done)
	if _, err := os.Stat(pidf + ".term"); err == nil {
		t.Error("the SIGTERM time is left behind")
	}

	// Ignores SIGTERM: signalled 2 s before the wait, killed at once by
	// a wait whose grace is 2 s.
	pidf = filepath.Join(dir, "b.pid")
	done = victim(t, pidf, true)
	run(crdbSignalScript, pidf)
	if err := os.WriteFile(pidf+".term", []byte(strconv.FormatInt(time.Now().Unix()-2, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if out := run(crdbReapScript, pidf, "2"); !strings.Contains(out, "still running 2s after SIGTERM: SIGKILL") {
		t.Errorf("wait: %s", out)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the wait took %s: its grace began at the wait, not at the SIGTERM", d)
	}
	wait(done)

	// Never signalled: the wait signals it.
	pidf = filepath.Join(dir, "c.pid")
	done = victim(t, pidf, false)
	if out := run(crdbReapScript, pidf, "30"); !strings.Contains(out, "stopped") {
		t.Errorf("wait: %s", out)
	}
	wait(done)

	for _, s := range []string{crdbSignalScript, crdbReapScript} {
		if out := run(s, filepath.Join(dir, "none.pid"), "1"); !strings.Contains(out, "not running") {
			t.Errorf("no node: %s", out)
		}
	}
}
