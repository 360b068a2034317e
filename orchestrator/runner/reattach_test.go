package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// The re-attach tests run steps on real sshd behind the fault proxy,
// with keepalives short enough (3 x 200 ms) that a black hole is noticed
// in about a second, and break the host's link while a step waits on it.
// Each case also runs with re-attaching off, where it must fail: what
// makes it pass is the re-attach.

type faultRig struct {
	lab    *sshtest.Lab
	ssh    *remote.SSH
	out    *syncbuf.Buffer // the hosts' live output
	mu     sync.Mutex
	events []Event
	host   string
	dir    string
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	f := &faultRig{lab: l, out: &syncbuf.Buffer{}, host: l.Name(0), dir: l.HostDir(0)}
	s, err := remote.NewSSH(l.Targets(), remote.SSHConfig{
		Output:            f.out,
		KnownHostsFiles:   []string{l.KnownHostsPath()},
		NoAgent:           true,
		SSHConfigFile:     "none",
		ConnectTimeout:    time.Second,
		KeepaliveInterval: 200 * time.Millisecond,
		KeepaliveCountMax: 3,
		DialRetries:       -1,
		RetryBackoff:      50 * time.Millisecond,
		KillGrace:         time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.ssh = s
	return f
}

// runner returns a Runner over the rig; budget as Runner.ReconnectBudget.
func (f *faultRig) runner(budget time.Duration) *Runner {
	f.mu.Lock()
	f.events = nil
	f.mu.Unlock()
	return &Runner{
		Exec: f.ssh,
		Observers: []Observer{ObserverFunc(func(e Event) error {
			f.mu.Lock()
			f.events = append(f.events, e)
			f.mu.Unlock()
			return nil
		})},
		JobPoll:             200 * time.Millisecond,
		ReconnectBudget:     budget,
		ReconnectBackoff:    200 * time.Millisecond,
		ReconnectBackoffMax: time.Second,
	}
}

func (f *faultRig) count(k EventKind) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, e := range f.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (f *faultRig) messages() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, e := range f.events {
		switch e.Kind {
		case Message:
			fmt.Fprintf(&b, "%s: %s\n", e.Host, e.Text)
		case HostUnreachable:
			fmt.Fprintf(&b, "%s (%v)\n", UnreachableText(e.Host, e.Since, e.Attempt, e.BudgetLeft), e.Err)
		case HostReconnected:
			fmt.Fprintf(&b, "%s back after %v\n", e.Host, e.Elapsed)
		}
	}
	return b.String()
}

// faults are the ways a link breaks while a step waits on the host.
var faults = []struct {
	name      string
	breakLink func(t *testing.T, f *faultRig)
}{
	{"blackhole", func(t *testing.T, f *faultRig) { f.lab.Proxy(0).Blackhole(3 * time.Second) }},
	{"reset", func(t *testing.T, f *faultRig) { f.lab.Proxy(0).Reset() }},
	{"sshd restart", func(t *testing.T, f *faultRig) {
		// A new sshd process, same host key and port, after 1.5 s away;
		// every session of the old one went with it.
		if err := f.lab.Kill(0); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(1500 * time.Millisecond)
		if err := f.lab.Restart(0); err != nil {
			t.Error(err)
		}
	}},
}

func countLines(n int) string {
	return fmt.Sprintf("i=1; while [ $i -le %d ]; do echo line$i; i=$((i+1)); sleep 0.1; done", n)
}

// TestReattachJob breaks the link of a host whose detached job the step
// follows: the step re-attaches by the job's name, the job runs once,
// every log line is shown exactly once, and the re-attach is reported.
// With re-attaching off the same fault fails the step.
func TestReattachJob(t *testing.T) {
	f := newFaultRig(t)
	for i, fault := range faults {
		for _, on := range []bool{true, false} {
			name := fmt.Sprintf("%s/reattach=%v", fault.name, on)
			t.Run(name, func(t *testing.T) {
				budget := 30 * time.Second
				if !on {
					budget = -1
				}
				r := f.runner(budget)
				job := fmt.Sprintf("count%d%v", i, on)
				marker := filepath.Join(f.dir, job+".starts")
				st := stages.Stage{Name: "run", Steps: []stages.Step{{
					Host: f.host, Kind: stages.Job, What: "count", JobName: job, JobDir: filepath.Join(f.dir, "jobs"),
					Cmd: remote.Cmd{Args: []string{"sh", "-c", "echo x >>" + marker + "; " + countLines(60) + "; echo end $(date +%s.%N) >>" + marker}},
				}}}
				broken := make(chan struct{})
				go func() {
					defer close(broken)
					time.Sleep(1200 * time.Millisecond)
					fault.breakLink(t, f)
				}()
				before := len(f.out.String())
				err := r.Run(context.Background(), []stages.Stage{st})
				<-broken
				f.lab.Proxy(0).Heal()
				if !on {
					var te *remote.TransportError
					if !errors.As(err, &te) {
						t.Fatalf("with re-attaching off: err = %v, want a TransportError", err)
					}
					if f.count(HostUnreachable) != 0 {
						t.Error("re-attach is off, yet the runner redialed")
					}
					return
				}
				if err != nil {
					t.Fatalf("%v\nevents:\n%s", err, f.messages())
				}
				if f.count(HostUnreachable) == 0 || f.count(HostReconnected) != 1 || !strings.Contains(f.messages(), "re-attaching to job "+job) {
					t.Errorf("the re-attach was not reported:\n%s", f.messages())
				}
				shown := map[string]int{}
				for _, line := range strings.Split(f.out.String()[before:], "\n") {
					if _, text, ok := strings.Cut(line, " | "); ok && strings.HasPrefix(text, "line") {
						shown[text]++
					}
				}
				for k := 1; k <= 60; k++ {
					if n := shown[fmt.Sprintf("line%d", k)]; n != 1 {
						t.Errorf("line%d shown %d times", k, n)
					}
				}
				if starts, _ := os.ReadFile(marker); strings.Count(string(starts), "x") != 1 {
					t.Errorf("the job started %d times:\n%s", strings.Count(string(starts), "x"), starts)
				}
			})
		}
	}
}

// TestReattachWait: a wait step polls across a restarted sshd and a
// black hole and succeeds once the condition holds; with re-attaching
// off it fails.
func TestReattachWait(t *testing.T) {
	f := newFaultRig(t)
	for i, fault := range faults {
		if fault.name == "reset" {
			// A reset between two polls costs nothing: the next poll
			// dials a new connection, re-attach or not.
			continue
		}
		for _, on := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/reattach=%v", fault.name, on), func(t *testing.T) {
				budget := 30 * time.Second
				if !on {
					budget = -1
				}
				r := f.runner(budget)
				flag := filepath.Join(f.dir, fmt.Sprintf("ready%d%v", i, on))
				st := stages.Stage{Name: "partition", Steps: []stages.Step{{
					Host: f.host, Kind: stages.Wait, What: "wait for ready", Poll: 200 * time.Millisecond, Timeout: time.Minute, Settle: 2,
					Cmd: remote.Cmd{Args: []string{"test", "-f", flag}},
				}}}
				broken := make(chan struct{})
				go func() {
					defer close(broken)
					time.Sleep(500 * time.Millisecond)
					fault.breakLink(t, f)
					time.Sleep(500 * time.Millisecond)
					_ = os.WriteFile(flag, nil, 0o644)
				}()
				err := r.Run(context.Background(), []stages.Stage{st})
				<-broken
				f.lab.Proxy(0).Heal()
				if !on {
					if err == nil {
						t.Fatal("with re-attaching off the wait survived the fault")
					}
					return
				}
				if err != nil || f.count(HostReconnected) == 0 {
					t.Fatalf("err %v\nevents:\n%s", err, f.messages())
				}
			})
		}
	}
}

// TestGetRetried: a download cut by a black hole (the link throttled so
// that it is under way) is done again and arrives whole.
func TestGetRetried(t *testing.T) {
	f := newFaultRig(t)
	src := filepath.Join(f.dir, "histogram.json")
	data := bytes.Repeat([]byte("0123456789abcdef"), 32<<10) // 512 KiB
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("reattach=%v", on), func(t *testing.T) {
			budget := 30 * time.Second
			if !on {
				budget = -1
			}
			r := f.runner(budget)
			dst := filepath.Join(t.TempDir(), "h.json")
			st := stages.Stage{Name: "collect", Steps: []stages.Step{{
				Host: f.host, Kind: stages.Get, What: "download histogram.json", Transfer: remote.Transfer{Local: dst, Remote: src},
			}}}
			if err := f.ssh.Connect(context.Background(), f.host); err != nil {
				t.Fatal(err)
			}
			p := f.lab.Proxy(0)
			p.Limit(256 << 10)
			go func() {
				time.Sleep(700 * time.Millisecond)
				p.Blackhole(2 * time.Second)
				time.Sleep(2 * time.Second)
				p.Limit(0)
			}()
			err := r.Run(context.Background(), []stages.Stage{st})
			time.Sleep(2500 * time.Millisecond)
			p.Heal()
			p.Limit(0)
			if !on {
				if err == nil {
					t.Fatal("with re-attaching off the download survived the black hole")
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, f.messages())
			}
			if got, _ := os.ReadFile(dst); !bytes.Equal(got, data) {
				t.Errorf("downloaded %d bytes, want %d intact", len(got), len(data))
			}
			if f.count(HostReconnected) == 0 {
				t.Errorf("no re-attach reported:\n%s", f.messages())
			}
		})
	}
}

// TestBudgetExceeded: a host that stays away past the budget fails the
// step with an UnreachableError naming host, stage and step (a transport
// error: exit 10); once it is back, running the stage again (what resume
// does) re-attaches to the job, which ran on meanwhile.
func TestBudgetExceeded(t *testing.T) {
	f := newFaultRig(t)
	r := f.runner(2 * time.Second)
	r.JobTag = "run1"
	st := stages.Stage{Name: "run", Steps: []stages.Step{{
		Host: f.host, Kind: stages.Job, What: "run tpcc", JobName: "tpcc", JobDir: filepath.Join(f.dir, "jobs"),
		Cmd: remote.Cmd{Args: []string{"sh", "-c", countLines(50)}},
	}}}
	go func() {
		time.Sleep(time.Second)
		f.lab.Proxy(0).Blackhole(0)
	}()
	start := time.Now()
	err := r.Run(context.Background(), []stages.Stage{st})
	var ue *UnreachableError
	var te *remote.TransportError
	if !errors.As(err, &ue) || !errors.As(err, &te) {
		t.Fatalf("err = %v, want an UnreachableError over a TransportError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "stage run: host "+f.host+": run tpcc: unreachable since") || !strings.Contains(msg, "budget of 2s") {
		t.Errorf("the failure does not name stage, host, step and budget: %s", msg)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a 2s budget took %v to run out", took)
	}
	f.lab.Proxy(0).Heal()
	r = f.runner(2 * time.Second)
	r.JobTag = "run1"
	if err := r.Run(context.Background(), []stages.Stage{st}); err != nil {
		t.Fatalf("after the host came back: %v", err)
	}
	if m := f.messages(); !strings.Contains(m, "re-attaching to job tpcc.run1") && !strings.Contains(m, "job tpcc.run1 already finished") {
		t.Errorf("the second run did not re-attach:\n%s", m)
	}
}

// TestNotRepeated: an Exec step that is not safe to repeat stops on a
// dropped connection with resume advice and is not run again; the same
// step marked Idempotent is run again and succeeds.
func TestNotRepeated(t *testing.T) {
	f := newFaultRig(t)
	for _, idem := range []bool{false, true} {
		t.Run(fmt.Sprintf("idempotent=%v", idem), func(t *testing.T) {
			r := f.runner(30 * time.Second)
			marker := filepath.Join(f.dir, fmt.Sprintf("ran-%v", idem))
			st := stages.Stage{Name: "init", Steps: []stages.Step{{
				Host: f.host, Kind: stages.Exec, What: "create the schema", Idempotent: idem,
				Cmd: remote.Cmd{Args: []string{"sh", "-c", "echo x >>" + marker + "; sleep 2"}},
			}}}
			if err := f.ssh.Connect(context.Background(), f.host); err != nil {
				t.Fatal(err)
			}
			go func() {
				time.Sleep(700 * time.Millisecond)
				f.lab.Proxy(0).Reset()
			}()
			err := r.Run(context.Background(), []stages.Stage{st})
			runs := 0
			if b, rerr := os.ReadFile(marker); rerr == nil {
				runs = strings.Count(string(b), "x")
			}
			if idem {
				if err != nil || runs != 2 {
					t.Errorf("idempotent step: err %v, ran %d times (want 2)", err, runs)
				}
				return
			}
			var nr *NotRepeatedError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), "not safe to repeat") || runs != 1 {
				t.Errorf("step not safe to repeat: err %v, ran %d times (want 1)", err, runs)
			}
		})
	}
}
