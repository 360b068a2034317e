package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// recorder is the runner's test executor: it records every call in the
// order calls begin, holds each for a moment so that calls which may run
// together do, measures how many ran at once, and fails the calls fail
// names. It is the executor's contract as the runner sees it; the real
// executors are tested against SSH and local processes in remote/.
type recorder struct {
	hold time.Duration
	fail func(host string, args []string) error

	mu       sync.Mutex
	calls    []string // "host: args"
	inFlight int
	most     int
}

func (r *recorder) do(host string, what string) error {
	r.mu.Lock()
	r.calls = append(r.calls, host+": "+what)
	r.inFlight++
	r.most = max(r.most, r.inFlight)
	r.mu.Unlock()
	time.Sleep(r.hold)
	r.mu.Lock()
	r.inFlight--
	r.mu.Unlock()
	if r.fail != nil {
		return r.fail(host, strings.Fields(what))
	}
	return nil
}

func (r *recorder) Run(_ context.Context, host string, c remote.Cmd) (remote.Result, error) {
	err := r.do(host, strings.Join(c.Args, " "))
	return remote.Result{Host: host, Stdout: []byte("out of " + strings.Join(c.Args, " "))}, err
}

func (r *recorder) Put(_ context.Context, host string, t remote.Transfer) error {
	return r.do(host, "put "+t.Remote)
}

func (r *recorder) Get(_ context.Context, host string, t remote.Transfer) error {
	return r.do(host, "get "+t.Remote)
}

func (r *recorder) StartJob(_ context.Context, j remote.Job, c remote.Cmd) error {
	return r.do(j.Host, "job "+j.Name+" "+strings.Join(c.Args, " "))
}

func (r *recorder) WaitJob(_ context.Context, j remote.Job) (remote.JobStatus, error) {
	return remote.JobStatus{State: remote.JobExited}, nil
}

func (r *recorder) log() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// events is an observer that keeps every event.
type events struct{ list []Event }

func (e *events) Observe(ev Event) error { e.list = append(e.list, ev); return nil }

func (e *events) kinds(filter ...EventKind) []string {
	var out []string
	for _, ev := range e.list {
		if len(filter) > 0 && !slices.Contains(filter, ev.Kind) {
			continue
		}
		s := kindName[ev.Kind]
		if ev.Host != "" {
			s += " " + ev.Host
		}
		out = append(out, s)
	}
	return out
}

var kindName = map[EventKind]string{
	StageStarted: "stage-started", StageSkipped: "stage-skipped", StageChecked: "stage-checked",
	StageDone: "stage-done", StageFailed: "stage-failed", StepStarted: "step-started",
	StepDone: "step-done", StepFailed: "step-failed", HostDone: "host-done", PhaseDone: "phase-done",
	Message: "message", SearchTrying: "search-trying", SearchVerdict: "search-verdict", SearchDone: "search-done",
}

func exec(host string, args ...string) stages.Step {
	return stages.Step{Host: host, Kind: stages.Exec, What: strings.Join(args, " "), Cmd: remote.Cmd{Args: args}}
}

// stage builds a stage of one phase from steps, or of several: a nil step
// starts a new phase.
func stage(name string, steps ...*stages.Step) stages.Stage {
	st := stages.Stage{Name: name}
	phase := 0
	for _, s := range steps {
		if s == nil {
			phase++
			continue
		}
		s.Phase = phase
		st.Steps = append(st.Steps, *s)
	}
	return st
}

func step(host string, args ...string) *stages.Step {
	s := exec(host, args...)
	return &s
}

func run(t *testing.T, r *Runner, list ...stages.Stage) error {
	t.Helper()
	if r.Sleep == nil {
		r.Sleep = func(context.Context, time.Duration) error { return nil }
	}
	return r.Run(context.Background(), list)
}

// TestOrder: a host's steps run in order; a phase starts only when every
// host finished the one before; stages run one after another.
func TestOrder(t *testing.T) {
	rec := &recorder{hold: time.Millisecond}
	r := &Runner{Exec: rec}
	err := run(t, r,
		stage("one",
			step("a", "a1"), step("b", "b1"), step("a", "a2"), step("b", "b2"),
			nil,
			step("a", "a3"), step("c", "c3")),
		stage("two", step("c", "c4"), step("a", "a4")))
	if err != nil {
		t.Fatal(err)
	}
	calls := rec.log()
	at := func(c string) int {
		i := slices.Index(calls, c)
		if i < 0 {
			t.Fatalf("%s never ran: %v", c, calls)
		}
		return i
	}
	for _, before := range [][2]string{
		{"a: a1", "a: a2"}, {"b: b1", "b: b2"}, // host order
		{"a: a2", "a: a3"}, {"b: b2", "c: c3"}, {"a: a2", "c: c3"}, // phases
		{"a: a3", "c: c4"}, {"c: c3", "a: a4"}, // stages
	} {
		if at(before[0]) > at(before[1]) {
			t.Errorf("%s ran after %s: %v", before[0], before[1], calls)
		}
	}
	if len(calls) != 8 {
		t.Errorf("%d calls, want 8: %v", len(calls), calls)
	}
}

// TestFanOutLimit: at most Limit hosts at once; a Serial stage one; no
// limit means every host at once.
func TestFanOutLimit(t *testing.T) {
	hosts := func() []*stages.Step {
		var out []*stages.Step
		for i := range 8 {
			out = append(out, step(fmt.Sprintf("h%d", i), "x"), step(fmt.Sprintf("h%d", i), "y"))
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		limit  int
		serial bool
		want   int
	}{
		{"limit 3", 3, false, 3},
		{"serial", 0, true, 1},
		{"serial beats the limit", 5, true, 1},
		{"no limit", 0, false, 8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{hold: 20 * time.Millisecond}
			st := stage("s", hosts()...)
			st.Serial = tt.serial
			if err := run(t, &Runner{Exec: rec, Limit: tt.limit}, st); err != nil {
				t.Fatal(err)
			}
			if rec.most != tt.want {
				t.Errorf("%d calls at once, want %d", rec.most, tt.want)
			}
			if len(rec.log()) != 16 {
				t.Errorf("%d calls, want 16", len(rec.log()))
			}
		})
	}
}

// TestOneHostFails: the failing host's later steps and the later stages
// do not run; hosts already under way finish their step; the error names
// stage, host and step, and the events say which step failed.
func TestOneHostFails(t *testing.T) {
	rec := &recorder{hold: 5 * time.Millisecond, fail: func(host string, args []string) error {
		if host == "b" && args[0] == "b1" {
			return &remote.ExitError{Host: host, Cmd: "b1", Code: 3}
		}
		return nil
	}}
	ev := &events{}
	r := &Runner{Exec: rec, Observers: []Observer{ev}}
	err := run(t, r,
		stage("one", step("a", "a1"), step("b", "b1"), step("b", "b2"), step("c", "c1")),
		stage("two", step("a", "a3")))
	var se *StepError
	if !errors.As(err, &se) || se.Stage != "one" || se.Host != "b" || se.Step != "b1" {
		t.Fatalf("want a StepError for stage one, host b, step b1; got %v", err)
	}
	var exit *remote.ExitError
	if !errors.As(err, &exit) || exit.Code != 3 {
		t.Errorf("the executor's error is not wrapped: %v", err)
	}
	calls := rec.log()
	if slices.Contains(calls, "b: b2") || slices.Contains(calls, "a: a3") {
		t.Errorf("ran past the failure: %v", calls)
	}
	if !slices.Contains(calls, "a: a1") || !slices.Contains(calls, "c: c1") {
		t.Errorf("the other hosts' steps under way did not run: %v", calls)
	}
	got := ev.kinds(StepFailed, StageFailed, StageDone)
	if !slices.Equal(got, []string{"step-failed b", "stage-failed"}) {
		t.Errorf("events %v", got)
	}
}

// progress is a fake earlier attempt.
type progress struct {
	stageDone map[int]bool
	done      map[string]int // "stage/host"
	attempt   int
	points    []stages.SearchPoint
}

func (p *progress) StageDone(i int) bool { return p.stageDone[i] }
func (p *progress) StepsDone(i int, h string) int {
	return p.done[fmt.Sprintf("%d/%s", i, h)]
}
func (p *progress) Attempt(int, string) int               { return p.attempt }
func (p *progress) SearchPoints(int) []stages.SearchPoint { return p.points }

// TestResumePoints: a finished stage is skipped, and within a stage each
// host goes on from its first unfinished step, whatever the phase; step
// indexes in the events are the host's positions in the whole stage.
func TestResumePoints(t *testing.T) {
	rec := &recorder{}
	ev := &events{}
	r := &Runner{Exec: rec, Observers: []Observer{ev}, Progress: &progress{
		stageDone: map[int]bool{0: true},
		done:      map[string]int{"1/a": 2, "1/b": 1},
	}}
	err := run(t, r,
		stage("zero", step("a", "z")),
		stage("one", step("a", "a0"), step("a", "a1"), step("b", "b0"), nil, step("a", "a2"), step("b", "b1")))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.log(); !slices.Equal(sorted(got), []string{"a: a2", "b: b1"}) {
		t.Errorf("ran %v, want only a2 and b1", got)
	}
	if got := ev.kinds(StageSkipped); len(got) != 1 {
		t.Errorf("stage zero not reported skipped: %v", ev.kinds())
	}
	for _, e := range ev.list {
		if e.Kind == StepDone && e.Index != map[string]int{"a": 2, "b": 1}[e.Host] {
			t.Errorf("%s: step index %d", e.Host, e.Index)
		}
	}
}

func sorted(s []string) []string { slices.Sort(s); return s }

// TestEvents: the observers hear the whole run in order, and an observer
// that fails (the state file cannot be written) stops the run.
func TestEvents(t *testing.T) {
	ev := &events{}
	r := &Runner{Exec: &recorder{}, Observers: []Observer{ev}}
	if err := run(t, r, stage("s", step("a", "x"), nil, step("a", "y"), step("b", "y"))); err != nil {
		t.Fatal(err)
	}
	got := ev.kinds()
	// Phase two's hosts run in parallel: compare its events as a set.
	want := []string{"stage-started", "step-started a", "step-done a", "host-done a", "phase-done"}
	if !slices.Equal(got[:5], want) {
		t.Errorf("events %v, want to start with %v", got, want)
	}
	rest := sorted(slices.Clone(got[5 : len(got)-2]))
	if !slices.Equal(rest, []string{"host-done a", "host-done b", "step-done a", "step-done b", "step-started a", "step-started b"}) {
		t.Errorf("phase two events %v", rest)
	}
	if tail := got[len(got)-2:]; !slices.Equal(tail, []string{"phase-done", "stage-done"}) {
		t.Errorf("events end with %v", tail)
	}

	rec := &recorder{}
	failing := ObserverFunc(func(e Event) error {
		if e.Kind == StepDone && e.Host == "a" {
			return errors.New("disk full")
		}
		return nil
	})
	err := run(t, &Runner{Exec: rec, Observers: []Observer{failing}}, stage("s", step("a", "x"), step("a", "y")), stage("t", step("a", "z")))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("observer failure not returned: %v", err)
	}
	if got := rec.log(); !slices.Equal(got, []string{"a: x"}) {
		t.Errorf("ran on after the observer failed: %v", got)
	}
}

// TestCheckExit: a step that exits with its CheckExit lets the stage and
// run go on, and the run ends as a CheckFailedError naming it.
func TestCheckExit(t *testing.T) {
	rec := &recorder{fail: func(host string, args []string) error {
		if args[0] == "audit" {
			return &remote.ExitError{Host: host, Code: 30}
		}
		return nil
	}}
	s := step("a", "audit")
	s.CheckExit = 30
	err := run(t, &Runner{Exec: rec}, stage("run", s, step("b", "other")), stage("after", step("a", "z")))
	var ce *CheckFailedError
	if !errors.As(err, &ce) || len(ce.Failures) != 1 || !strings.Contains(ce.Failures[0], "audit on a") {
		t.Fatalf("want a CheckFailedError for audit on a, got %v", err)
	}
	if !slices.Contains(rec.log(), "a: z") {
		t.Error("the run stopped at a failed check")
	}
}

// TestStartAt: steps marked StartAt get the same --start-at on every
// host, before their positional arguments.
func TestStartAt(t *testing.T) {
	rec := &recorder{}
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	var list []*stages.Step
	for _, h := range []string{"a", "b"} {
		s := step(h, "run", "--x", "url1", "url2")
		s.StartAt, s.Positional = true, 2
		list = append(list, s)
	}
	r := &Runner{Exec: rec, Now: func() time.Time { return now }, StartLead: 10 * time.Second}
	if err := run(t, r, stage("run", list...)); err != nil {
		t.Fatal(err)
	}
	for _, c := range rec.log() {
		if !strings.HasSuffix(c, "run --x --start-at=2026-12-03T09:00:10Z url1 url2") {
			t.Errorf("call %q", c)
		}
	}
}

// TestSearch: the runner bisects with the stage's Search data, expanding
// the tried value into each iteration's steps, goes on from the verdicts
// of an earlier attempt, and reports each verdict.
func TestSearch(t *testing.T) {
	const threshold = 37
	rec := &recorder{fail: func(host string, args []string) error {
		if args[0] == "check" {
			var v int
			fmt.Sscan(args[1], &v)
			if v > threshold {
				return &remote.ExitError{Host: host, Code: 30}
			}
		}
		return nil
	}}
	verdict := exec("local", "check", stages.SearchValue)
	verdict.Verdict, verdict.CheckExit, verdict.Phase = true, 30, 1
	st := stages.Stage{Name: "run", Search: &stages.Search{Flag: "active-warehouses", Min: 1, Max: 100, Resolution: 1,
		Iteration: []stages.Step{exec("w1", "run", "--active-warehouses", stages.SearchValue), verdict}}}
	ev := &events{}
	r := &Runner{Exec: rec, Observers: []Observer{ev}, Progress: &progress{points: []stages.SearchPoint{{Value: 51, Pass: false}}}}
	if err := run(t, r, st); err != nil {
		t.Fatal(err)
	}
	calls := rec.log()
	if slices.Contains(calls, "w1: run --active-warehouses 51") {
		t.Error("re-ran the earlier attempt's iteration")
	}
	if !slices.Contains(calls, "w1: run --active-warehouses 37") || !slices.Contains(calls, "local: check 37") {
		t.Errorf("never tried the threshold: %v", calls)
	}
	if len(calls) > 2*7 {
		t.Errorf("%d calls: not a bisection", len(calls))
	}
	var best int
	fresh := 0
	for _, e := range ev.list {
		switch {
		case e.Kind == SearchDone:
			best = e.Value
		case e.Kind == SearchVerdict && !e.Earlier:
			fresh++
			if e.Point.Pass != (e.Point.Value <= threshold) {
				t.Errorf("verdict %+v", e.Point)
			}
		}
	}
	if best != threshold || fresh != len(calls)/2 {
		t.Errorf("best %d after %d verdicts for %d calls", best, fresh, len(calls))
	}
}
