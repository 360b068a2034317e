package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/remote"
)

// Runner executes compiled stages through an Executor. With a
// remote.Recorder it is the dry-run: the same code path, connecting
// nowhere, so what it lists is what a real run sends.
type Runner struct {
	Exec Executor
	// Out receives stage headers, notes and (with Listing) every call made.
	Out io.Writer
	// Listing prints, after each stage, every call of every host in host
	// order: the dry-run's output.
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

	shown map[string]bool // scripts the listing has printed
}

// StepError says which stage, host and step failed.
type StepError struct {
	Stage, Host, Step string
	Err               error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("stage %s: host %s: %s: %v", e.Stage, e.Host, e.Step, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// Run executes the stages in order; within a stage, hosts run in
// parallel (or one by one for a Serial stage), each host's steps in
// order. The first failure stops the stage; every failure is returned.
func (r *Runner) Run(ctx context.Context, stages []Stage) error {
	r.shown = map[string]bool{}
	for _, st := range stages {
		if err := r.runStage(ctx, st); err != nil {
			return err
		}
	}
	return nil
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

func (r *Runner) runStage(ctx context.Context, st Stage) error {
	hosts, _ := hostSteps(st.Steps)
	mode := ""
	switch {
	case st.Serial && len(hosts) > 1:
		mode = ", one host at a time"
	case len(hosts) > 1:
		mode = ", in parallel"
	}
	fmt.Fprintf(r.Out, "== stage %s: %d host%s%s\n", st.Name, len(hosts), plural(len(hosts)), mode)
	for _, n := range st.Notes {
		fmt.Fprintf(r.Out, "   note: %s\n", n)
	}
	var phase []Step
	for i, s := range st.Steps {
		phase = append(phase, s)
		if i == len(st.Steps)-1 || st.Steps[i+1].Phase != s.Phase {
			if err := r.runPhase(ctx, st, phase); err != nil {
				return err
			}
			phase = nil
		}
	}
	return nil
}

// runPhase runs one phase of a stage: hosts in parallel (or one by one),
// each host's steps in order.
func (r *Runner) runPhase(ctx context.Context, st Stage, list []Step) error {
	hosts, steps := hostSteps(list)
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
	for i, h := range hosts {
		g.Go(func() error {
			for _, s := range steps[h] {
				if s.StartAt {
					s.Cmd.Args = insertFlag(s.Cmd.Args, len(s.Cmd.Args)-s.Positional, "--start-at="+startAt)
				}
				journals[i] = append(journals[i], s)
				if err := r.runStep(gctx, s); err != nil {
					return &StepError{Stage: st.Name, Host: h, Step: s.What, Err: err}
				}
			}
			return nil
		})
	}
	err := g.Wait()
	if r.Listing {
		width := 0
		for _, h := range hosts {
			width = max(width, len(h))
		}
		for i, h := range hosts {
			for _, s := range journals[i] {
				line, scripts := s.Listing()
				for _, name := range scripts {
					if !r.shown[name] {
						r.shown[name] = true
						fmt.Fprintf(r.Out, "   script <%s>, run as sh -c <%s> sh ARGS...:\n", name, name)
						for _, l := range strings.Split(scriptText(name), "\n") {
							fmt.Fprintf(r.Out, "   : %s\n", l)
						}
					}
				}
				prefix := fmt.Sprintf("%-*s | ", width, h)
				fmt.Fprintf(r.Out, "%s%s\n", prefix, strings.ReplaceAll(line, "\n", "\n"+prefix))
			}
		}
	}
	return err
}

// insertFlag returns args with flag inserted at i (a copy: steps are
// values shared with the caller).
func insertFlag(args []string, i int, flag string) []string {
	out := make([]string, 0, len(args)+1)
	out = append(out, args[:i]...)
	out = append(out, flag)
	return append(out, args[i:]...)
}

func (r *Runner) runStep(ctx context.Context, s Step) error {
	switch s.Kind {
	case Put:
		return r.Exec.Put(ctx, s.Host, s.Transfer)
	case Get:
		return r.Exec.Get(ctx, s.Host, s.Transfer)
	case Wait:
		return r.wait(ctx, s)
	}
	// Exec, Job and Local run their command; the executor knows how to
	// reach LocalHost.
	_, err := r.Exec.Run(ctx, s.Host, s.Cmd)
	return err
}

// wait polls s.Cmd until it succeeds s.Settle times in a row. A command
// failure means "not yet"; a transport failure ends the wait.
func (r *Runner) wait(ctx context.Context, s Step) error {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	ok := 0
	for {
		_, err := r.Exec.Run(ctx, s.Host, s.Cmd)
		var exit *remote.ExitError
		switch {
		case err == nil:
			ok++
			if ok >= max(1, s.Settle) {
				return nil
			}
		case errors.As(err, &exit):
			ok = 0
		default:
			return err
		}
		if err := r.sleep(ctx, s.Poll); err != nil {
			return fmt.Errorf("not done after %s: %w", formatDuration(s.Timeout), err)
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
