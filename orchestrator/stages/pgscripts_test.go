package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// TestPGStartWaitsForARunningNode runs the start script through sh with
// stand-in programs: a node that runs (pg_ctl status succeeds) but does
// not accept connections yet (pg_isready fails three times) is waited
// for, not reported ready at once, and not started a second time. A
// resumed run meets such a node when the orchestrator was killed while
// pg_ctl -w waited for it: the next node's pg_basebackup then found no
// server (TestKillAndResume).
func TestPGStartWaitsForARunningNode(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := map[string]string{
		"pg_ctl": `echo "pg_ctl $*" >>"` + calls + `"; [ "$3" = status ]`,
		"pg_isready": `echo pg_isready >>"` + calls + `"
[ "$(grep -c pg_isready "` + calls + `")" -ge 4 ]`,
	}
	writeFakes(t, bin, fake)
	f := postgresFlavor{p: &plan.Plan{Nodes: []plan.Host{{Name: "db1", Addr: "127.0.0.2", SQLPort: 5432, Store: filepath.Join(dir, "pgdata"), Dir: dir}}}}
	c := f.startCmd(f.p.Nodes[0], bin)
	out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("start script: %v\n%s", err, out)
	}
	got, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	want := "pg_ctl -D " + filepath.Join(dir, "pgdata") + " status\n" + strings.Repeat("pg_isready\n", 4)
	if string(got) != want || !strings.Contains(string(out), "already running") {
		t.Errorf("programs run:\n%s\nwant:\n%s\noutput: %s", got, want, out)
	}
}

// TestCreateDBMadeMeanwhile: a createdb that fails because the database
// appeared after the script looked (an interrupted attempt's createdb was
// still under way, TestKillAndResume) leaves the step done; one that
// fails with the database still absent fails the step.
func TestCreateDBMadeMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		exists string // psql's answer to the second look
		ok     bool
	}{{"made meanwhile", "1", true}, {"still absent", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bin, dir := t.TempDir(), t.TempDir()
			looks := filepath.Join(dir, "looks")
			fake := map[string]string{
				"psql":     `cat >/dev/null; echo x >>"` + looks + `"; [ "$(wc -l <"` + looks + `")" -ge 2 ] && echo "` + tc.exists + `"; exit 0`,
				"createdb": `echo 'createdb: error: database creation failed: ERROR:  duplicate key value violates unique constraint "pg_database_datname_index"' >&2; exit 1`,
			}
			writeFakes(t, bin, fake)
			out, err := exec.Command("sh", "-c", createDB, "sh", bin, "127.0.0.2", "5432", "tpcc").CombinedOutput()
			if (err == nil) != tc.ok {
				t.Errorf("create database: err %v, want ok %v\n%s", err, tc.ok, out)
			}
		})
	}
}

// TestPGStartNoHalfMadeDataDirectory: an initdb that dies half-way (the
// orchestrator killed during the start stage, TestKillAndResume) leaves
// no data directory behind, so the next attempt runs initdb again instead
// of starting a server on half a cluster ("pg_ctl: could not start
// server"); the next attempt's directory is complete and the dead one's
// leftovers are gone. The stand-in initdb writes PG_VERSION first, as the
// real one does.
func TestPGStartNoHalfMadeDataDirectory(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	fail := filepath.Join(dir, "fail")
	fake := map[string]string{
		"pg_ctl":     `[ "$3" != status ]`, // not running; start succeeds
		"pg_isready": `exit 1`,
		"initdb": `mkdir -p "$2"; echo 15 >"$2/PG_VERSION"; touch "$2/pg_hba.conf"
if [ -e "` + fail + `" ]; then kill -9 $$; fi
touch "$2/complete"`,
	}
	writeFakes(t, bin, fake)
	data := filepath.Join(dir, "pgdata")
	f := postgresFlavor{p: &plan.Plan{Nodes: []plan.Host{{Name: "db1", Addr: "127.0.0.2", SQLPort: 5432, Store: data, Dir: dir}}}}
	c := f.startCmd(f.p.Nodes[0], bin)
	if err := os.WriteFile(fail, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput(); err == nil {
		t.Fatalf("the start script succeeded though initdb was killed:\n%s", out)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("a killed initdb left %s: %v", data, err)
	}
	os.Remove(fail)
	if out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("second attempt: %v\n%s", err, out)
	}
	for _, f := range []string{"PG_VERSION", "complete", "benchrig.conf", OwnedMarker} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("the data directory lacks %s: %v", f, err)
		}
	}
	if left, _ := filepath.Glob(data + ".partial.*"); len(left) != 0 {
		t.Errorf("leftovers of the killed attempt: %v", left)
	}
}

// TestPGStartWaitsForARunningAttempt: the orchestrator killed during the
// start stage leaves the node's start script running on the host (its
// initdb goes on); the resumed attempt must let it finish, not remove its
// directory under it (CI: "rm: cannot remove 'pgdata.partial.6923':
// Directory not empty"). Both attempts succeed and the node is whole.
func TestPGStartWaitsForARunningAttempt(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	fake := map[string]string{
		"pg_ctl":     `[ "$3" != status ]`,
		"pg_isready": `exit 1`,
		// A slow initdb that keeps writing into its directory.
		"initdb": `mkdir -p "$2"; echo 15 >"$2/PG_VERSION"; touch "$2/pg_hba.conf"
i=0; while [ $i -lt 30 ]; do i=$((i+1)); mkdir "$2/base$i" && touch "$2/base$i/f" || exit 1; sleep 0.05; done
touch "$2/complete"`,
	}
	writeFakes(t, bin, fake)
	data := filepath.Join(dir, "pgdata")
	f := postgresFlavor{p: &plan.Plan{Nodes: []plan.Host{{Name: "db1", Addr: "127.0.0.2", SQLPort: 5432, Store: data, Dir: dir}}}}
	c := f.startCmd(f.p.Nodes[0], bin)
	firstDone := startInterrupted(t, c, "started its initdb", 200, func() bool {
		left, _ := filepath.Glob(data + ".partial.*/base2")
		return len(left) != 0
	})
	if out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput(); err != nil {
		t.Errorf("the resumed attempt: %v\n%s", err, out)
	}
	if err, out := firstDone(); err != nil {
		t.Errorf("the interrupted attempt, still running, was broken by the resumed one: %v\n%s", err, out)
	}
	for _, f := range []string{"PG_VERSION", "complete", "benchrig.conf"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("the data directory lacks %s: %v", f, err)
		}
	}
}

// TestPGStartWaitsForARunningStart: an interrupted attempt killed while
// its pg_ctl start was still bringing the server up (no postmaster.pid
// yet, so pg_ctl status says no server runs) is let finish; the resumed
// attempt then finds the node running instead of racing it with a second
// pg_ctl start, whose lock-file failure stopped TestKillAndResume in CI.
func TestPGStartWaitsForARunningStart(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	fake := map[string]string{
		// status: running once the postmaster has written its pid file;
		// start: takes the data directory's lock at once, the pid file a
		// second later, as a slow server start does.
		"pg_ctl": `case "$3" in status) [ -f "$2/postmaster.pid" ]; exit $? ;; esac
mkdir "$2/lock" 2>/dev/null || { echo 'FATAL: lock file "postmaster.pid" already exists' >&2; exit 1; }
sleep 1; touch "$2/postmaster.pid"`,
		"pg_isready": `exit 0`,
		"initdb":     `mkdir -p "$2"; echo 15 >"$2/PG_VERSION"; touch "$2/pg_hba.conf" "$2/postgresql.conf"`,
	}
	writeFakes(t, bin, fake)
	data := filepath.Join(dir, "pgdata")
	f := postgresFlavor{p: &plan.Plan{Nodes: []plan.Host{{Name: "db1", Addr: "127.0.0.2", SQLPort: 5432, Store: data, Dir: dir}}}}
	c := f.startCmd(f.p.Nodes[0], bin)
	firstDone := startInterrupted(t, c, "reached its pg_ctl start", 300, func() bool {
		_, err := os.Stat(filepath.Join(data, "lock"))
		return err == nil
	})
	out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "already running") {
		t.Errorf("the resumed attempt: %v\n%s", err, out)
	}
	if err, out := firstDone(); err != nil {
		t.Errorf("the interrupted attempt: %v\n%s", err, out)
	}
}

// writeFakes writes the stand-in programs (name: sh body) into bin.
func writeFakes(t *testing.T, bin string, fake map[string]string) {
	t.Helper()
	for name, body := range fake {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// startInterrupted starts the start script c as the attempt a killed
// orchestrator left running on the host, and returns once reached says
// it is where the test wants it (polled every 10 ms, at most polls
// times). The returned func waits for it and gives its exit and output.
func startInterrupted(t *testing.T, c remote.Cmd, what string, polls int, reached func() bool) func() (error, string) {
	t.Helper()
	first := exec.Command(c.Args[0], c.Args[1:]...)
	var out strings.Builder
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Reaped as soon as it exits, as sshd reaps it: a zombie answers kill -0.
	done := make(chan error, 1)
	go func() { done <- first.Wait() }()
	for i := 0; !reached(); i++ {
		if i > polls {
			t.Fatalf("the first attempt never %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() (error, string) { return <-done, out.String() }
}
