package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// barrierJob acts as `benchrig tpcc run` does at the barrier: it warms up
// for $1 seconds, writes its ready file (the flags the runner appends),
// waits for its start file and writes "<ready> <start>" into $2.
const barrierJob = `warm=$1 out=$2; shift 2
for a; do case $a in --ready-file=*) r=${a#*=};; --start-file=*) s=${a#*=};; esac; done
sleep "$warm"
date -u +%Y-%m-%dT%H:%M:%S.%NZ > "$r.tmp" && mv "$r.tmp" "$r"
while [ ! -f "$s" ]; do sleep 0.02; done
printf '%s %s\n' "$(cat "$r")" "$(cat "$s")" > "$out"`

// TestStartBarrier: two hosts whose warm-ups take 0.1 s and 1.5 s both
// get one start instant, fixed after the slower one became ready (a
// --start-at of now + the lead would have passed 1.2 s before it was);
// the runner says how far apart the warm-ups ended.
func TestStartBarrier(t *testing.T) {
	dir := t.TempDir()
	var steps []stages.Step
	warm := map[string]string{"a": "0.1", "b": "1.5"}
	for _, h := range []string{"a", "b"} {
		steps = append(steps, stages.Step{Host: h, Kind: stages.Job, What: "run TPC-C", JobName: "run-" + h, JobDir: dir + "/jobs",
			StartAt: true, Ready: true,
			Cmd: remote.Cmd{Args: []string{"sh", "-c", barrierJob, "sh", warm[h], filepath.Join(dir, h+".out")}}})
	}
	var said []string
	began := time.Now()
	r := &Runner{Exec: remote.NewLocal(remote.LocalConfig{}), JobTag: "r1", StartLead: 300 * time.Millisecond, JobPoll: 50 * time.Millisecond,
		Observers: []Observer{ObserverFunc(func(e Event) error {
			if e.Kind == Message {
				said = append(said, e.Text)
			}
			return nil
		})}}
	if err := r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: steps}}); err != nil {
		t.Fatal(err)
	}
	got := map[string][2]time.Time{}
	for _, h := range []string{"a", "b"} {
		b, err := os.ReadFile(filepath.Join(dir, h+".out"))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			t.Fatalf("%s wrote %q", h, b)
		}
		var at [2]time.Time
		for i := range f {
			if at[i], err = time.Parse(time.RFC3339Nano, f[i]); err != nil {
				t.Fatal(err)
			}
		}
		got[h] = at
	}
	a, b := got["a"], got["b"]
	if !a[1].Equal(b[1]) {
		t.Errorf("start instants differ: a %s, b %s", a[1], b[1])
	}
	if !b[1].After(b[0]) || !a[1].After(b[0]) {
		t.Errorf("start %s is not after the last host became ready (%s)", a[1], b[0])
	}
	if early := began.Add(r.StartLead); !a[1].After(early.Add(time.Second)) {
		t.Errorf("start %s: no later than a --start-at fixed when the phase began (%s)", a[1], early)
	}
	if text := strings.Join(said, "\n"); !strings.Contains(text, "start barrier: 2 of 2 hosts ready, their warm-ups ending 1.") || !strings.Contains(text, "all start at "+a[1].UTC().Format(time.RFC3339Nano)) {
		t.Errorf("the runner did not say the barrier: %q", said)
	}
	// The ready and start files are the job's, tagged with the run.
	if _, err := os.Stat(filepath.Join(dir, "jobs", "run-b.r1.start")); err != nil {
		t.Error(err)
	}
}

// TestStartBarrierHostEndsBeforeReady: a host whose job ends before it
// is ready is not waited for; the other still gets its start instant.
func TestStartBarrierHostEndsBeforeReady(t *testing.T) {
	dir := t.TempDir()
	ok := stages.Step{Host: "a", Kind: stages.Job, What: "run TPC-C", JobName: "run", JobDir: dir + "/a", StartAt: true, Ready: true,
		Cmd: remote.Cmd{Args: []string{"sh", "-c", barrierJob, "sh", "0.1", filepath.Join(dir, "a.out")}}}
	gone := stages.Step{Host: "b", Kind: stages.Job, What: "run TPC-C", JobName: "run", JobDir: dir + "/b", StartAt: true, Ready: true,
		Cmd: remote.Cmd{Args: []string{"sh", "-c", "exit 0"}}}
	r := &Runner{Exec: remote.NewLocal(remote.LocalConfig{}), JobTag: "r1", StartLead: 100 * time.Millisecond, JobPoll: 50 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		done <- r.Run(context.Background(), []stages.Stage{{Name: "run", Steps: []stages.Step{ok, gone}}})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("host a still waits at the barrier for a host whose job ended")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.out")); err != nil || len(strings.Fields(string(b))) != 2 {
		t.Errorf("a: %q, %v", b, err)
	}
}
