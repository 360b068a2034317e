package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// Runner executes compiled stages through an Executor and tells its
// Observers what happens. With a remote.Recorder it is the dry-run: the
// same code path, connecting nowhere, so what it lists is what a run sends.
type Runner struct {
	Exec Executor
	// Observers get every event, one at a time, in order: the console,
	// the state file, the logs.
	Observers []Observer
	// Limit bounds how many hosts a stage works on at once.
	Limit int
	// Now is the clock (tests fix it); StartLead is how far ahead the
	// common start instant of a parallel run is set.
	Now       func() time.Time
	StartLead time.Duration
	// Sleep waits between polls; dry-run makes it return at once, since
	// nothing it polls can change.
	Sleep func(ctx context.Context, d time.Duration) error

	// Progress, if set, is what an earlier attempt finished: those stages
	// and steps are skipped (a resume).
	Progress Progress
	// JobTag makes detached job names unique to this run (the run
	// directory's name), so a job left by another run is never mistaken
	// for this one's.
	JobTag  string
	JobPoll time.Duration
	// ReconnectBudget is how long a host may stay unreachable while a
	// step that is safe to repeat waits for it (see reattach.go); zero
	// means DefaultReconnectBudget, negative turns re-attaching off (a
	// dropped connection fails the step at once).
	ReconnectBudget time.Duration
	// ReconnectBackoff and ReconnectBackoffMax bound the waits between
	// redials (zero: the defaults).
	ReconnectBackoff, ReconnectBackoffMax time.Duration

	emitMu  sync.Mutex
	mu      sync.Mutex
	probes  []stages.ProbeResult // of the stage under way
	checks  []string             // steps that finished with a failed check
	deaths  []Death              // measured runs that died (died.go)
	verdict bool                 // the last Verdict step's outcome
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
	// Log, if set, is the file that holds the step's whole output (the
	// run directory's logs/<stage>/<host>.log): the message points to it.
	Log string
}

func (e *StepError) Error() string {
	s := fmt.Sprintf("stage %s: host %s: %s: %s", e.Stage, e.Host, e.Step, e.msg)
	if e.Log != "" {
		s += "\n    its whole output: " + e.Log
	}
	return s
}

func (e *StepError) Unwrap() error { return e.Err }

// Message is the failure alone, scrubbed, without stage, host and step.
func (e *StepError) Message() string { return e.msg }

// Run executes the stages in order; within a stage, phases in order,
// hosts of a phase in parallel (or one by one for a Serial stage), each
// host's steps in order. A stage stops at its first failure, after the
// hosts already under way finish their current step.
func (r *Runner) Run(ctx context.Context, list []stages.Stage) error {
	r.deaths = nil
	if d, ok := r.Progress.(Deaths); ok {
		r.deaths = d.Deaths()
	}
	for i, st := range list {
		if r.Progress != nil && r.Progress.StageDone(i) {
			if err := r.emit(Event{Kind: StageSkipped, Stage: st.Name, StageIndex: i}); err != nil {
				return err
			}
			continue
		}
		if err := r.runStage(ctx, i, st); err != nil {
			return err
		}
	}
	if len(r.deaths) > 0 {
		return &IncompleteError{Deaths: r.deaths, Checks: r.checks}
	}
	if len(r.checks) > 0 {
		return &CheckFailedError{Failures: r.checks}
	}
	return nil
}

// emit hands e to every observer, one event at a time.
func (r *Runner) emit(e Event) error {
	if e.Time.IsZero() {
		e.Time = r.now()
	}
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	var errs []error
	for _, o := range r.Observers {
		if err := o.Observe(e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// say tells the observers something about a host; it cannot fail a step.
func (r *Runner) say(host, text string) {
	_ = r.emit(Event{Kind: Message, Host: host, Text: text})
}

func (r *Runner) runStage(ctx context.Context, idx int, st stages.Stage) error {
	hosts, _ := stages.HostSteps(st.Steps)
	started := r.now()
	ev := Event{Stage: st.Name, StageIndex: idx}
	start := ev
	start.Kind, start.Time, start.Hosts, start.Serial, start.Notes, start.Check = StageStarted, started, hosts, st.Serial, st.Notes, st.Check
	if err := r.emit(start); err != nil {
		return err
	}
	r.mu.Lock()
	r.probes = nil
	r.mu.Unlock()
	// Each host's position among its own steps, across phases.
	pos := map[string]int{}
	var err error
	for _, phase := range phases(st.Steps) {
		if err = r.runPhase(ctx, idx, st, phase, pos, true); err != nil {
			break
		}
	}
	if err == nil && st.Search != nil {
		err = r.runSearch(ctx, idx, st)
	}
	reset := false
	if err == nil && st.Check != nil {
		r.mu.Lock()
		probes := append([]stages.ProbeResult(nil), r.probes...)
		r.mu.Unlock()
		text, brief, verr := st.Check.JudgeBrief(probes)
		checked := ev
		checked.Kind, checked.Text, checked.Brief, checked.Err = StageChecked, text, brief, verr
		err = r.emit(checked)
		if verr != nil {
			// The verdict needs every host's answer: a resume asks them
			// all again.
			err, reset = fmt.Errorf("stage %s: %w", st.Name, verr), true
		}
	}
	end := ev
	if err != nil {
		end.Kind, end.Err, end.Reset = StageFailed, err, reset
		_ = r.emit(end) // the stage's own error says more than the state's
		return err
	}
	end.Kind, end.Elapsed = StageDone, r.now().Sub(started)
	return r.emit(end)
}

// phases splits steps (in phase order) into their phases.
func phases(steps []stages.Step) [][]stages.Step {
	var out [][]stages.Step
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
// the stage; track says the steps are resume points (not a search's).
func (r *Runner) runPhase(ctx context.Context, idx int, st stages.Stage, list []stages.Step, pos map[string]int, track bool) error {
	hosts, steps := stages.HostSteps(list)
	first := make(map[string]int, len(hosts))
	for _, h := range hosts {
		first[h] = pos[h]
		pos[h] += len(steps[h])
	}
	startAt := ""
	var bar *barrier
	for _, s := range list {
		if s.StartAt && s.Ready && bar == nil {
			bar = newBarrier(hosts)
		}
		if s.StartAt && !s.Ready && startAt == "" {
			startAt = r.now().Add(r.StartLead).UTC().Format(time.RFC3339Nano)
		}
	}
	journals := make([][]stages.Step, len(hosts)) // index = host order
	pctx, pcancel := context.WithCancelCause(ctx)
	defer pcancel(nil)
	g, gctx := errgroup.WithContext(pctx)
	switch {
	case bar != nil:
		// Every host at once: a host held back by the limit would keep
		// the others waiting at the barrier.
	case st.Serial:
		g.SetLimit(1)
	case st.Limit > 0 && (r.Limit <= 0 || st.Limit < r.Limit):
		g.SetLimit(st.Limit)
	case r.Limit > 0:
		g.SetLimit(r.Limit)
	}
	if bar != nil {
		go func() {
			err := r.runBarrier(gctx, st, bar)
			if err != nil {
				pcancel(err) // the jobs waiting at the barrier would wait for nothing
			}
			bar.err <- err
		}()
	}
	done := 0
	var doneMu sync.Mutex
	for i, h := range hosts {
		g.Go(func() error {
			if bar != nil {
				defer bar.end(h)
			}
			for k, s := range steps[h] {
				n := first[h] + k // the step's index among the host's steps
				if track && r.Progress != nil && n < r.Progress.StepsDone(idx, h) {
					continue
				}
				digest := s.Digest() // as compiled, before the start instant is added
				switch {
				case s.StartAt && s.Ready:
					ready, start := barrierFiles(s.JobDir, r.jobName(idx, s))
					at := len(s.Cmd.Args) - s.Positional
					s.Cmd.Args = insertFlag(insertFlag(s.Cmd.Args, at, "--start-file="+fromDir(s.Cmd.Dir, start)), at, "--ready-file="+fromDir(s.Cmd.Dir, ready))
					bar.join(h, ready, start)
				case s.StartAt:
					s.Cmd.Args = insertFlag(s.Cmd.Args, len(s.Cmd.Args)-s.Positional, "--start-at="+startAt)
				}
				journals[i] = append(journals[i], s)
				if !track {
					n = -1
				}
				hctx := gctx
				switch {
				case s.MaxRun > 0 && s.Ready && bar != nil:
					hctx = withStartInstant(gctx, bar.startInstant)
				case s.MaxRun > 0 && s.StartAt:
					at, _ := time.Parse(time.RFC3339Nano, startAt)
					hctx = withStartInstant(gctx, func() (time.Time, bool) { return at, true })
				}
				err := r.runRecorded(hctx, idx, st, s, n, digest)
				if s.Ready && bar != nil {
					bar.end(h)
				}
				if err != nil {
					return err
				}
			}
			doneMu.Lock()
			done++
			n := done
			doneMu.Unlock()
			return r.emit(Event{Kind: HostDone, Stage: st.Name, StageIndex: idx, Host: h, Done: n, Of: len(hosts)})
		})
	}
	err := g.Wait()
	if bar != nil {
		// Every host has ended, so the barrier has too; its failure
		// is what stopped the hosts.
		if berr := <-bar.err; berr != nil {
			err = berr
		}
	}
	if lerr := r.emit(Event{Kind: PhaseDone, Stage: st.Name, StageIndex: idx, Hosts: hosts, Listing: journals}); err == nil {
		err = lerr
	}
	return err
}

// runSearch drives a line search: one iteration at a time, each decided
// by its Verdict step; verdicts go to the observers (the state keeps
// them), so a resumed search goes on from the last finished iteration.
func (r *Runner) runSearch(ctx context.Context, idx int, st stages.Stage) error {
	ev := Event{Stage: st.Name, StageIndex: idx, Text: st.Search.Flag}
	var points []stages.SearchPoint
	if r.Progress != nil {
		points = append(points, r.Progress.SearchPoints(idx)...)
		for _, pt := range points {
			e := ev
			e.Kind, e.Point, e.Earlier = SearchVerdict, pt, true
			if err := r.emit(e); err != nil {
				return err
			}
		}
	}
	for {
		v, more := st.Search.Next(points)
		if !more {
			break
		}
		e := ev
		e.Kind, e.Value = SearchTrying, v
		if err := r.emit(e); err != nil {
			return err
		}
		r.mu.Lock()
		r.verdict = false
		r.mu.Unlock()
		for _, phase := range phases(st.Search.Steps(v)) {
			if err := r.runPhase(ctx, idx, st, phase, map[string]int{}, false); err != nil {
				return err
			}
		}
		r.mu.Lock()
		pt := stages.SearchPoint{Value: v, Pass: r.verdict}
		r.mu.Unlock()
		points = append(points, pt)
		e.Kind, e.Point = SearchVerdict, pt
		if err := r.emit(e); err != nil {
			return err
		}
	}
	e := ev
	e.Kind, e.Value = SearchDone, stages.BestPassing(points)
	return r.emit(e)
}

// runRecorded runs one step between its events. n is the step's index
// among its host's steps, -1 for a search iteration's.
func (r *Runner) runRecorded(ctx context.Context, idx int, st stages.Stage, s stages.Step, n int, digest string) error {
	ev := Event{Stage: st.Name, StageIndex: idx, Host: s.Host, Step: s, Index: n, Digest: digest}
	started := ev
	started.Kind = StepStarted
	if err := r.emit(started); err != nil {
		return err
	}
	sent := time.Now()
	res, err := r.runStep(ctx, ev, s)
	var exit *remote.ExitError
	var died *diedError
	checkFailed := false
	if errors.As(err, &died) && s.Window != "" {
		d := Death{Stage: st.Name, Host: s.Host, Step: s.What, Job: died.job, Window: s.Window, Reason: died.reason}
		r.mu.Lock()
		r.deaths = append(r.deaths, d)
		r.mu.Unlock()
		r.say(s.Host, fmt.Sprintf("job %s %s: this host's measured window is incomplete; the other hosts carry on and the merged result will be marked incomplete", died.job, died.reason))
		ev.Died, err = &d, nil
	}
	if s.Verdict && ev.Died != nil {
		// A search iteration whose measured run died did not pass.
		r.mu.Lock()
		r.verdict = false
		r.mu.Unlock()
	} else if s.Verdict {
		failed := errors.As(err, &exit) && exit.Code == s.CheckExit
		if err == nil || failed {
			r.mu.Lock()
			r.verdict = !failed
			r.mu.Unlock()
			err = nil
		}
	} else if s.CheckExit != 0 && errors.As(err, &exit) && exit.Code == s.CheckExit {
		r.mu.Lock()
		r.checks = append(r.checks, fmt.Sprintf("%s on %s (stage %s)", s.What, s.Host, st.Name))
		r.mu.Unlock()
		checkFailed, err = true, nil
	}
	ev.Sent, ev.Received, ev.Result = sent, time.Now(), res
	if s.Probe != "" && err == nil {
		r.mu.Lock()
		r.probes = append(r.probes, stages.ProbeResult{Host: s.Host, Probe: s.Probe, Sent: sent, Received: ev.Received, Stdout: string(res.Stdout)})
		r.mu.Unlock()
	}
	if err != nil {
		// The step's host is named once (remote's errors name it too).
		msg := strings.TrimPrefix(Redact(s.Cmd, err.Error()), "host "+s.Host+": ")
		se := &StepError{Stage: st.Name, Host: s.Host, Step: s.What, Err: err, msg: msg}
		ev.Kind, ev.Err = StepFailed, se
		if oerr := r.emit(ev); oerr != nil {
			return errors.Join(se, oerr)
		}
		return se
	}
	ev.Kind, ev.CheckFailed = StepDone, checkFailed
	return r.emit(ev)
}

// Redact removes the values of the command's secrets from text, in every
// form a program may echo them (redact.Secrets): a licence a'b handed over
// as an SQL literal (the quote doubled) comes back raw in an error message.
func Redact(c remote.Cmd, text string) string {
	var values []string
	for _, sec := range c.Secrets {
		if v, err := sec.Reveal(); err == nil {
			values = append(values, v)
		}
	}
	return redact.Secrets(text, values...)
}

// insertFlag returns args with flag inserted at i (a copy: steps are
// values shared with the caller).
func insertFlag(args []string, i int, flag string) []string {
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:i]...)
	out = append(out, flag)
	return append(out, args[i:]...)
}

// runStep runs one step; a dropped connection is re-attached after
// (retrying) when the step is safe to repeat, or stops it.
func (r *Runner) runStep(ctx context.Context, ev Event, s stages.Step) (remote.Result, error) {
	switch s.Kind {
	case stages.Local:
		// Exec and Local run their command; the executor knows how to
		// reach LocalHost.
		return r.Exec.Run(ctx, s.Host, s.Cmd)
	case stages.Wait:
		return r.wait(ctx, ev, s) // re-attaches poll by poll
	case stages.Job:
		return r.job(ctx, ev, s)
	case stages.Fetch:
		return r.fetch(ctx, ev, s)
	}
	var res remote.Result
	err := r.retrying(ctx, ev, s, func(ctx context.Context) error {
		var err error
		switch s.Kind {
		case stages.Put:
			res, err = remote.Result{Host: s.Host}, r.Exec.Put(ctx, s.Host, s.Transfer)
		case stages.Get:
			res, err = remote.Result{Host: s.Host}, r.Exec.Get(ctx, s.Host, s.Transfer)
			if d, dead := r.deadFile(s.Host, s.Transfer.Remote); dead && errors.Is(err, fs.ErrNotExist) {
				// A measured run that died never wrote it: the merge
				// names the host incomplete.
				r.say(s.Host, fmt.Sprintf("%s was not written (job %s %s)", s.Transfer.Remote, d.Job, d.Reason))
				err = nil
			}
		default:
			res, err = r.Exec.Run(ctx, s.Host, s.Cmd)
		}
		return err
	})
	return res, err
}

// fetch runs a Fetch step: the host fetches the binary from its Source
// (or unpacks a stream an earlier attempt uploaded); when that fails for
// any reason but the host's own connection, the runner says so, uploads
// the gzip stream from this machine and has the host unpack it.
func (r *Runner) fetch(ctx context.Context, ev Event, s stages.Step) (remote.Result, error) {
	var res remote.Result
	err := r.retrying(ctx, ev, s, func(ctx context.Context) error {
		var err error
		res, err = r.Exec.Run(ctx, s.Host, s.FetchCmd())
		if err == nil || transient(err) || ctx.Err() != nil {
			return err
		}
		if s.Source != "" {
			var exit *remote.ExitError
			why := err.Error()
			if errors.As(err, &exit) {
				why = strings.TrimSpace(exit.StderrTail)
				if why == "" {
					why = fmt.Sprintf("exit status %d", exit.Code)
				}
			}
			r.say(s.Host, fmt.Sprintf("could not fetch %s from %s (%s); sending it from this machine", s.Transfer.Remote, s.Source, why))
		}
		if err := r.Exec.Put(ctx, s.Host, s.Upload()); err != nil {
			return err
		}
		res, err = r.Exec.Run(ctx, s.Host, s.UnpackCmd())
		return err
	})
	return res, err
}
