package remote_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestDetachedJobSurvivesDisconnect starts a job, drops the connection
// (closes the executor, as a crashed orchestrator would), re-attaches
// with a new executor and finds it still running, reads its log, stops
// it and sees its exit status.
func TestDetachedJobSurvivesDisconnect(t *testing.T) {
	l := sshtest.StartT(t, 1)
	ctx := context.Background()
	host, dir := l.Name(0), l.HostDir(0)+"/jobs"
	s1 := newSSH(t, l, nil)
	cmd := remote.Cmd{Args: []string{"sh", "-c", `i=0; while :; do echo "tick $i"; i=$((i+1)); sleep 0.1; done`}}
	start := time.Now()
	j, err := remote.StartJob(ctx, s1, host, dir, "ticker", cmd)
	if err != nil {
		t.Fatal(err)
	}
	// A StartJob that waited for the job would never return; this bound
	// is only generous enough for a loaded machine.
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("StartJob took %v: the session waited for the job", d)
	}
	if _, err := remote.StartJob(ctx, s1, host, dir, "ticker", cmd); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second start: err = %v, want already running", err)
	}
	s1.Close()
	time.Sleep(500 * time.Millisecond)

	s2 := newSSH(t, l, nil)
	j2 := remote.Job{Host: j.Host, Dir: j.Dir, Name: j.Name}
	st, err := j2.Status(ctx, s2)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != remote.JobRunning || st.Pid == 0 {
		t.Fatalf("after disconnect: %+v, want running", st)
	}
	tail, err := j2.Tail(ctx, s2, 2)
	if err != nil || !strings.Contains(tail, "tick ") {
		t.Fatalf("tail %q, %v", tail, err)
	}
	if err := j2.Stop(ctx, s2, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err = j2.Wait(wctx, s2, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != remote.JobExited || st.ExitCode != 143 {
		t.Errorf("after stop: %+v, want exited 143 (SIGTERM)", st)
	}
}

func TestJobExitStatusAndFollow(t *testing.T) {
	l := sshtest.StartT(t, 1)
	var out syncbuf.Buffer
	s := newSSH(t, l, func(c *remote.SSHConfig) { c.Output = &out })
	ctx := context.Background()
	j, err := remote.StartJob(ctx, s, l.Name(0), l.HostDir(0), "short", remote.Cmd{Args: []string{"sh", "-c", "echo one; sleep 0.5; echo two; exit 7"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Follow(ctx, s, 1); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "| one\n") || !strings.Contains(got, "| two\n") {
		t.Errorf("follow output:\n%s", got)
	}
	st, err := j.Wait(ctx, s, 50*time.Millisecond)
	if err != nil || st.State != remote.JobExited || st.ExitCode != 7 {
		t.Errorf("status %+v, %v; want exited 7", st, err)
	}
	none := remote.Job{Host: l.Name(0), Dir: l.HostDir(0), Name: "never"}
	if st, err := none.Status(ctx, s); err != nil || st.State != remote.JobNone {
		t.Errorf("never started: %+v, %v", st, err)
	}
	if _, err := remote.StartJob(ctx, s, l.Name(0), l.HostDir(0), "bad name", remote.Cmd{Args: []string{"true"}}); err == nil {
		t.Error("a job name with a space was accepted")
	}
	if err := (remote.Job{Host: l.Name(0), Dir: l.HostDir(0), Name: "x;y"}).Stop(ctx, s, 0); err == nil {
		t.Error("bad name accepted by Stop")
	}
}

// TestJobDryRun shows what a job start looks like to the Recorder: one
// constant script, values only as positional parameters.
func TestJobDryRun(t *testing.T) {
	r := remote.NewRecorder()
	_, err := remote.StartJob(context.Background(), r, "node-01", "/var/run/bench", "import", remote.Cmd{Args: []string{"cockroach", "workload", "fixtures", "import", "tpcc", "--warehouses=10; rm -rf /"}})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Entries()
	if len(e) != 1 || !strings.HasSuffix(e[0].Text, ` sh /var/run/bench import 'cockroach workload fixtures import tpcc '\''--warehouses=10; rm -rf /'\'''`) {
		t.Errorf("recorded %q", e)
	}
}

// TestJobKilledIsDetected: a job whose command gets SIGKILL (exit 137)
// and one whose whole process group gets it (no exit record) both read as
// Killed, so a resume starts them again; a job that failed on its own
// does not.
func TestJobKilledIsDetected(t *testing.T) {
	l := sshtest.StartT(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host, dir := l.Name(0), l.HostDir(0)+"/jobs"
	s := newSSH(t, l, nil)
	wait := func(j remote.Job) remote.JobStatus {
		t.Helper()
		st, err := j.Wait(ctx, s, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	sleeper := remote.Cmd{Args: []string{"sh", "-c", `echo $$ > "$0"; exec sleep 30`, dir + "/cmd.pid"}}

	// kill -9 of the command alone: the wrapper records 137.
	j, err := remote.StartJob(ctx, s, host, dir, "alone", sleeper)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, host, remote.Cmd{Args: []string{"sh", "-c", `while [ ! -s "$0" ]; do sleep 0.05; done; kill -KILL "$(cat "$0")"`, dir + "/cmd.pid"}}); err != nil {
		t.Fatal(err)
	}
	if st := wait(j); st.State != remote.JobExited || st.ExitCode != 137 || !st.Killed() {
		t.Errorf("command killed: %+v (Killed %v), want exited 137, killed", st, st.Killed())
	}

	// kill -9 of the whole process group: no exit record at all.
	j, err = remote.StartJob(ctx, s, host, dir, "group", sleeper)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, host, remote.Cmd{Args: []string{"sh", "-c", `kill -KILL "-$(cat "$0")"`, j.Dir + "/group.pid"}}); err != nil {
		t.Fatal(err)
	}
	if st := wait(j); st.State != remote.JobLost || !st.Killed() {
		t.Errorf("group killed: %+v (Killed %v), want lost, killed", st, st.Killed())
	}

	j, err = remote.StartJob(ctx, s, host, dir, "failing", remote.Cmd{Args: []string{"sh", "-c", "exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if st := wait(j); st.State != remote.JobExited || st.ExitCode != 3 || st.Killed() {
		t.Errorf("failed job: %+v (Killed %v), want exited 3, not killed", st, st.Killed())
	}
}
