package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/remote"
)

// JobExecutor is an optional Executor capability: an executor that runs
// detached jobs itself. The Recorder has it, so that a dry-run lists a
// job as one line; for the others the Runner drives remote.Job over Run.
type JobExecutor interface {
	StartJob(ctx context.Context, j remote.Job, c remote.Cmd) error
	WaitJob(ctx context.Context, j remote.Job) (remote.JobStatus, error)
}

// Runner executes compiled stages through an Executor. With a
// remote.Recorder it is the dry-run: the same code path, connecting
// nowhere, so what it lists is what a run sends.
type Runner struct {
	Exec Executor
	// Out receives stage headers, notes, per-host completions and (with
	// Listing) every step of every host in host order: the dry-run's output.
	Out     io.Writer
	Listing bool
	// Limit bounds how many hosts a stage works on at once.
	Limit int
	// Now is the clock (tests fix it); StartLead is how far ahead the
	// common start instant of a parallel run is set.
	Now       func() time.Time
	StartLead time.Duration
	// Sleep waits between polls; dry-run makes it return at once, since
	// nothing it polls can change.
	Sleep func(ctx context.Context, d time.Duration) error

	// State, if set, makes the run durable: finished steps are recorded
	// after each one and skipped when the run is resumed.
	State *State
	// LogDir, if set, receives logs/<stage>/<host>.log with the output of
	// every step; Journal, if set, one line per step as it starts.
	LogDir  string
	Journal io.Writer
	// JobTag makes detached job names unique to this run (the run
	// directory's name), so a job left by another run is never mistaken
	// for this one's.
	JobTag  string
	JobPoll time.Duration
	// Observe, if set, is told about every finished Probe step: when it
	// was sent, when its answer came, and the answer.
	Observe func(stage string, s Step, sent, received time.Time, res remote.Result)

	shown   map[string]bool // scripts the listing has printed
	outMu   sync.Mutex
	journMu sync.Mutex
	probeMu sync.Mutex
	probes  []ProbeResult // of the stage under way
	checks  []string      // steps that finished with a failed check
	verdict bool          // the last Verdict step's outcome
}

// CheckFailedError says the run went through but a benchmark check failed
// on some host (an audit check of tpcc run).
type CheckFailedError struct{ Failures []string }

func (e *CheckFailedError) Error() string {
	return "the run finished, but benchmark checks failed: " + strings.Join(e.Failures, "; ")
}

// StepError says which stage, host and step failed. Its text is scrubbed
// of any secret the step used.
type StepError struct {
	Stage, Host, Step string
	Err               error
	msg               string
}

func (e *StepError) Error() string {
	return fmt.Sprintf("stage %s: host %s: %s: %s", e.Stage, e.Host, e.Step, e.msg)
}

func (e *StepError) Unwrap() error { return e.Err }

// Run executes the stages in order; within a stage, phases in order,
// hosts of a phase in parallel (or one by one for a Serial stage), each
// host's steps in order. A stage stops at its first failure, after the
// hosts already under way finish their current step.
func (r *Runner) Run(ctx context.Context, stages []Stage) error {
	r.shown = map[string]bool{}
	if r.State != nil {
		if err := r.State.Matches(stages); err != nil {
			return err
		}
	}
	for i, st := range stages {
		if r.State != nil && r.State.Stages[i].Status == Done {
			r.printf("== stage %s: done in an earlier attempt, skipped\n", st.Name)
			continue
		}
		if err := r.runStage(ctx, i, st); err != nil {
			return err
		}
	}
	if len(r.checks) > 0 {
		return &CheckFailedError{Failures: r.checks}
	}
	return nil
}

func (r *Runner) printf(format string, args ...any) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	fmt.Fprintf(r.Out, format, args...)
}

// hostSteps groups steps by host, hosts in first-seen order.
func hostSteps(list []Step) (hosts []string, steps map[string][]Step) {
	steps = map[string][]Step{}
	for _, s := range list {
		if _, ok := steps[s.Host]; !ok {
			hosts = append(hosts, s.Host)
		}
		steps[s.Host] = append(steps[s.Host], s)
	}
	return hosts, steps
}

func (r *Runner) runStage(ctx context.Context, idx int, st Stage) error {
	hosts, _ := hostSteps(st.Steps)
	mode := ""
	switch {
	case st.Serial && len(hosts) > 1:
		mode = ", one host at a time"
	case len(hosts) > 1:
		mode = ", in parallel"
	}
	r.printf("== stage %s: %d host%s%s\n", st.Name, len(hosts), plural(len(hosts)), mode)
	for _, n := range st.Notes {
		r.printf("   note: %s\n", n)
	}
	started := r.now()
	if r.State != nil {
		if err := r.State.update(func() {
			ss := &r.State.Stages[idx]
			ss.Status = Running
			if ss.Started == nil {
				ss.Started = &started
			}
		}); err != nil {
			return err
		}
	}
	r.probeMu.Lock()
	r.probes = nil
	r.probeMu.Unlock()
	// Each host's position among its own steps, across phases.
	pos := map[string]int{}
	var err error
	for _, phase := range phases(st.Steps) {
		if err = r.runPhase(ctx, idx, st, phase, pos, true); err != nil {
			break
		}
	}
	if err == nil && st.search != nil {
		err = r.runSearch(ctx, idx, st)
	}
	verifyFailed := false
	if err == nil && st.Verify != nil {
		r.probeMu.Lock()
		probes := append([]ProbeResult(nil), r.probes...)
		r.probeMu.Unlock()
		text, verr := st.Verify(probes)
		r.printf("%s", text)
		if verr != nil {
			err, verifyFailed = fmt.Errorf("stage %s: %w", st.Name, verr), true
		}
	}
	if r.State != nil {
		finished := r.now()
		if serr := r.State.update(func() {
			ss := &r.State.Stages[idx]
			if err != nil {
				ss.Status = Failed
				if verifyFailed {
					// The verdict needs every host's answer: a resume
					// asks them all again.
					for k := range ss.Hosts {
						ss.Hosts[k].Done, ss.Hosts[k].Status, ss.Hosts[k].Error = 0, Failed, err.Error()
					}
				}
				return
			}
			ss.Status, ss.Finished = Done, &finished
		}); serr != nil && err == nil {
			err = serr
		}
	}
	if err == nil && !r.Listing {
		r.printf("   stage %s done in %s\n", st.Name, r.now().Sub(started).Round(time.Millisecond))
	}
	return err
}

// phases splits steps (in phase order) into their phases.
func phases(steps []Step) [][]Step {
	var out [][]Step
	for i, s := range steps {
		if i == 0 || steps[i-1].Phase != s.Phase {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], s)
	}
	return out
}

// runPhase runs one phase of a stage: hosts in parallel (or one by one),
// each host's steps in order. pos tracks each host's step index within
// the stage.
func (r *Runner) runPhase(ctx context.Context, idx int, st Stage, list []Step, pos map[string]int, track bool) error {
	hosts, steps := hostSteps(list)
	first := make(map[string]int, len(hosts))
	for _, h := range hosts {
		first[h] = pos[h]
		pos[h] += len(steps[h])
	}
	startAt := ""
	for _, s := range list {
		if s.StartAt {
			startAt = r.now().Add(r.StartLead).UTC().Format(time.RFC3339Nano)
			break
		}
	}
	journals := make([][]Step, len(hosts)) // index = host order
	g, gctx := errgroup.WithContext(ctx)
	switch {
	case st.Serial:
		g.SetLimit(1)
	case r.Limit > 0:
		g.SetLimit(r.Limit)
	}
	done := 0
	var doneMu sync.Mutex
	for i, h := range hosts {
		g.Go(func() error {
			for k, s := range steps[h] {
				n := first[h] + k // the step's index among the host's steps
				if track && r.skip(idx, h, n) {
					continue
				}
				digest := s.Digest() // as compiled, before the start instant is added
				if s.StartAt {
					s.Cmd.Args = insertFlag(s.Cmd.Args, len(s.Cmd.Args)-s.Positional, "--start-at="+startAt)
				}
				journals[i] = append(journals[i], s)
				if err := r.runRecorded(gctx, idx, st, s, n, digest, track); err != nil {
					return err
				}
			}
			if !r.Listing && len(hosts) > 1 {
				doneMu.Lock()
				done++
				r.printf("   ok   %s (%d/%d)\n", h, done, len(hosts))
				doneMu.Unlock()
			}
			return nil
		})
	}
	err := g.Wait()
	if r.Listing {
		r.list(hosts, journals)
	}
	return err
}

// runSearch drives a line search: one iteration at a time, each decided
// by its Verdict step; verdicts are kept in the state, so a resumed search
// goes on from the last finished iteration.
func (r *Runner) runSearch(ctx context.Context, idx int, st Stage) error {
	var points []SearchPoint
	if r.State != nil {
		r.State.mu.Lock()
		points = append(points, r.State.Stages[idx].Search...)
		r.State.mu.Unlock()
		for _, pt := range points {
			r.printf("   search: --active-warehouses=%d %s (an earlier attempt)\n", pt.Value, passText(pt.Pass))
		}
	}
	for {
		v, more := st.search.next(points)
		if !more {
			break
		}
		r.printf("   search: trying --active-warehouses=%d\n", v)
		r.outMu.Lock()
		r.verdict = false
		r.outMu.Unlock()
		for _, phase := range phases(st.search.iteration(v)) {
			if err := r.runPhase(ctx, idx, st, phase, map[string]int{}, false); err != nil {
				return err
			}
		}
		r.outMu.Lock()
		pass := r.verdict
		r.outMu.Unlock()
		points = append(points, SearchPoint{Value: v, Pass: pass})
		r.printf("   search: --active-warehouses=%d %s\n", v, passText(pass))
		if r.State != nil {
			if err := r.State.update(func() { r.State.Stages[idx].Search = append([]SearchPoint(nil), points...) }); err != nil {
				return err
			}
		}
	}
	if best := bestPassing(points); best > 0 {
		r.printf("   search: the largest passing --active-warehouses is %d\n", best)
	} else {
		r.printf("   search: no tried value passed\n")
	}
	return nil
}

func passText(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// skip says whether step n of host h in stage idx finished in an earlier
// attempt.
func (r *Runner) skip(idx int, h string, n int) bool {
	if r.State == nil {
		return false
	}
	r.State.mu.Lock()
	defer r.State.mu.Unlock()
	hs := r.State.host(idx, h)
	return hs != nil && n < hs.Done
}

// runRecorded runs one step with its state, journal and log around it.
func (r *Runner) runRecorded(ctx context.Context, idx int, st Stage, s Step, n int, digest string, track bool) error {
	now := r.now()
	track = track && r.State != nil
	if track {
		if err := r.State.update(func() {
			hs := r.State.host(idx, s.Host)
			hs.Status, hs.Current, hs.Error = Running, s.What, ""
			if hs.Started == nil {
				hs.Started = &now
			}
		}); err != nil {
			return err
		}
	}
	if r.Journal != nil {
		r.journMu.Lock()
		fmt.Fprintf(r.Journal, "%s\t%s\t%s\n", st.Name, s.Host, strings.ReplaceAll(s.Display(), "\n", "\\n"))
		r.journMu.Unlock()
	}
	sent := time.Now()
	res, err := r.runStep(ctx, idx, s)
	var exit *remote.ExitError
	if s.Verdict {
		failed := errors.As(err, &exit) && exit.Code == s.CheckExit
		if err == nil || failed {
			r.outMu.Lock()
			r.verdict = !failed
			r.outMu.Unlock()
			err = nil
		}
	} else if s.CheckExit != 0 && errors.As(err, &exit) && exit.Code == s.CheckExit {
		r.printf("   %s: %s finished, but its checks failed (exit %d); going on\n", s.Host, s.What, exit.Code)
		r.outMu.Lock()
		r.checks = append(r.checks, fmt.Sprintf("%s on %s (stage %s)", s.What, s.Host, st.Name))
		r.outMu.Unlock()
		err = nil
	}
	if s.Probe != "" && err == nil {
		received := time.Now()
		r.probeMu.Lock()
		r.probes = append(r.probes, ProbeResult{Host: s.Host, Probe: s.Probe, Sent: sent, Received: received, Stdout: string(res.Stdout)})
		r.probeMu.Unlock()
		if r.Observe != nil {
			r.Observe(st.Name, s, sent, received, res)
		}
	}
	r.log(st.Name, s, res, err)
	if err != nil {
		se := &StepError{Stage: st.Name, Host: s.Host, Step: s.What, Err: err, msg: scrub(s.Cmd, err.Error())}
		if track {
			if serr := r.State.update(func() {
				hs := r.State.host(idx, s.Host)
				hs.Status, hs.Error = Failed, se.msg
			}); serr != nil {
				return errors.Join(se, serr)
			}
		}
		return se
	}
	if track {
		end := r.now()
		return r.State.update(func() {
			hs := r.State.host(idx, s.Host)
			hs.Done = n + 1
			for len(hs.Digests) < hs.Steps {
				hs.Digests = append(hs.Digests, "")
			}
			if n < len(hs.Digests) {
				hs.Digests[n] = digest
			}
			if hs.Done >= hs.Steps {
				hs.Status, hs.Current, hs.Finished = Done, "", &end
			}
		})
	}
	return nil
}

// scrub removes the values of the command's secrets from text, in every
// form a program may echo them (redact.Secrets): a licence a'b handed over
// as an SQL literal (the quote doubled) comes back raw in an error message.
func scrub(c remote.Cmd, text string) string {
	var values []string
	for _, sec := range c.Secrets {
		if v, err := sec.Reveal(); err == nil {
			values = append(values, v)
		}
	}
	return redact.Secrets(text, values...)
}

// log appends a step's output to logs/<stage>/<host>.log.
func (r *Runner) log(stage string, s Step, res remote.Result, err error) {
	if r.LogDir == "" {
		return
	}
	dir := filepath.Join(r.LogDir, stage)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	f, ferr := os.OpenFile(filepath.Join(dir, s.Host+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "== %s %s: %s\n", r.now().UTC().Format(time.RFC3339), s.What, s.Display())
	b.Write(res.Stdout)
	if len(res.Stderr) > 0 {
		b.WriteString("-- stderr --\n")
		b.Write(res.Stderr)
	}
	if err != nil {
		fmt.Fprintf(&b, "-- failed: %v\n", err)
	}
	f.WriteString(scrub(s.Cmd, b.String()))
}

// list prints the dry-run listing of a phase: scripts once, then every
// host's steps in host order.
func (r *Runner) list(hosts []string, journals [][]Step) {
	width := 0
	for _, h := range hosts {
		width = max(width, len(h))
	}
	lines := make([][]string, len(hosts))
	for i := range hosts {
		for _, s := range journals[i] {
			line, scripts := s.Listing()
			lines[i] = append(lines[i], line)
			for _, name := range scripts {
				if r.shown[name] {
					continue
				}
				r.shown[name] = true
				r.printf("   script <%s>, run as sh -c <%s> sh ARGS...:\n", name, name)
				for _, l := range strings.Split(scriptText(name), "\n") {
					r.printf("   : %s\n", l)
				}
			}
		}
	}
	for i, h := range hosts {
		prefix := fmt.Sprintf("%-*s | ", width, h)
		for _, line := range lines[i] {
			r.printf("%s%s\n", prefix, strings.ReplaceAll(line, "\n", "\n"+prefix))
		}
	}
}

// insertFlag returns args with flag inserted at i (a copy: steps are
// values shared with the caller).
func insertFlag(args []string, i int, flag string) []string {
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:i]...)
	out = append(out, flag)
	return append(out, args[i:]...)
}

func (r *Runner) runStep(ctx context.Context, idx int, s Step) (remote.Result, error) {
	switch s.Kind {
	case Put:
		return remote.Result{Host: s.Host}, r.Exec.Put(ctx, s.Host, s.Transfer)
	case Get:
		return remote.Result{Host: s.Host}, r.Exec.Get(ctx, s.Host, s.Transfer)
	case Wait:
		return r.wait(ctx, s)
	case Job:
		return r.job(ctx, idx, s)
	}
	// Exec and Local run their command; the executor knows how to reach
	// LocalHost.
	return r.Exec.Run(ctx, s.Host, s.Cmd)
}

// job runs a detached job to completion: it starts the job unless it is
// already running or finished (a resumed run re-attaches), follows its
// log, and fails if the job exited non-zero.
func (r *Runner) job(ctx context.Context, idx int, s Step) (remote.Result, error) {
	name := s.JobName
	if r.JobTag != "" {
		name += "." + r.JobTag
		if r.State != nil {
			r.State.mu.Lock()
			if hs := r.State.host(idx, s.Host); hs != nil && hs.Attempt > 0 {
				name += fmt.Sprintf(".a%d", hs.Attempt)
			}
			r.State.mu.Unlock()
		}
	}
	j := remote.Job{Host: s.Host, Dir: s.JobDir, Name: name}
	res := remote.Result{Host: s.Host}
	var st remote.JobStatus
	var err error
	if je, ok := r.Exec.(JobExecutor); ok {
		if err := je.StartJob(ctx, j, s.Cmd); err != nil {
			return res, err
		}
		st, err = je.WaitJob(ctx, j)
	} else {
		st, err = r.driveJob(ctx, j, s)
	}
	if err != nil {
		return res, err
	}
	res.ExitCode = st.ExitCode
	if _, native := r.Exec.(JobExecutor); !native {
		// The job's own log becomes the step's output, for the host's
		// stage log and the report (audit checks, start delay).
		if out, err := j.Tail(ctx, r.Exec, jobLogLines); err == nil {
			res.Stdout = []byte(out)
		}
	}
	if st.ExitCode != 0 {
		return res, &remote.ExitError{Host: s.Host, Cmd: remote.ShellJoin(s.Cmd), Code: st.ExitCode, StderrTail: lastLines(string(res.Stdout), 20)}
	}
	return res, nil
}

// jobLogLines is how much of a finished job's log is kept in the run
// directory (a 30-minute run logs about 11,000 progress lines).
const jobLogLines = 50000

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (r *Runner) driveJob(ctx context.Context, j remote.Job, s Step) (remote.JobStatus, error) {
	st, err := j.Status(ctx, r.Exec)
	if err != nil {
		return st, err
	}
	switch {
	case st.Killed():
		// Killed, not failed (an earlier attempt's job got SIGKILL, alone
		// or with its process group, or the host restarted): the step is
		// unfinished, and a resume runs it again without --from. The job
		// is idempotent by construction (loads skip loaded warehouses).
		if st.State == remote.JobLost {
			r.printf("   %s: job %s died without an exit status (killed, or the host restarted); starting it again\n", s.Host, j.Name)
		} else {
			r.printf("   %s: job %s was killed (exit %d, SIGKILL); starting it again\n", s.Host, j.Name, st.ExitCode)
		}
		if _, err := remote.StartJob(ctx, r.Exec, s.Host, j.Dir, j.Name, s.Cmd); err != nil {
			return st, err
		}
	case st.State == remote.JobExited:
		// This run's job (the name is the run's) finished while the
		// orchestrator was away.
		r.printf("   %s: job %s already finished (exit %d)\n", s.Host, j.Name, st.ExitCode)
		return st, nil
	case st.State == remote.JobRunning:
		r.printf("   %s: re-attaching to job %s (pid %d)\n", s.Host, j.Name, st.Pid)
	default:
		if _, err := remote.StartJob(ctx, r.Exec, s.Host, j.Dir, j.Name, s.Cmd); err != nil {
			return st, err
		}
	}
	// Follow streams the job's log until the process ends; a broken
	// connection ends it early with a TransportError (resume re-attaches).
	if err := j.Follow(ctx, r.Exec, 1); err != nil {
		return st, err
	}
	poll := r.JobPoll
	if poll <= 0 {
		poll = time.Second
	}
	st, err = j.Wait(ctx, r.Exec, poll)
	if err != nil {
		return st, err
	}
	if st.State != remote.JobExited {
		return st, fmt.Errorf("job %s ended without an exit status (%s)", j.Name, st.State)
	}
	return st, nil
}

// wait polls s.Cmd until it succeeds s.Settle times in a row. A command
// failure means "not yet"; a transport failure ends the wait.
func (r *Runner) wait(ctx context.Context, s Step) (remote.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	s.Cmd.Quiet = true // a poll's output is noise on the console (it is logged)
	ok := 0
	for {
		res, err := r.Exec.Run(ctx, s.Host, s.Cmd)
		var exit *remote.ExitError
		switch {
		case err == nil:
			ok++
			if ok >= max(1, s.Settle) {
				return res, nil
			}
		case errors.As(err, &exit) && ctx.Err() == nil:
			ok = 0
		default:
			return res, err
		}
		if err := r.sleep(ctx, s.Poll); err != nil {
			return res, fmt.Errorf("not done after %s: %w", formatDuration(s.Timeout), err)
		}
	}
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
