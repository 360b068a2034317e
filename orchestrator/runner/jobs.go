package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// jobName is a job's name on its host: the step's, tagged with the run
// and the attempt, so that a job left by another run or attempt is never
// taken for this one's.
func (r *Runner) jobName(stage int, s stages.Step) string {
	name := s.JobName
	if r.JobTag != "" {
		name += "." + r.JobTag
		if r.Progress != nil {
			if a := r.Progress.Attempt(stage, s.Host); a > 0 {
				name += fmt.Sprintf(".a%d", a)
			}
		}
	}
	return name
}

func (r *Runner) job(ctx context.Context, ev Event, s stages.Step) (remote.Result, error) {
	j := remote.Job{Host: s.Host, Dir: s.JobDir, Name: r.jobName(ev.StageIndex, s)}
	res := remote.Result{Host: s.Host}
	switch s.JobMode {
	case stages.JobDetach:
		return res, r.retrying(ctx, ev, s, func(ctx context.Context) error { return r.detach(ctx, j, s) })
	case stages.JobStop:
		if js, ok := r.Exec.(JobStopper); ok {
			return res, js.StopJob(ctx, j)
		}
		return res, r.retrying(ctx, ev, s, func(ctx context.Context) error { return j.Stop(ctx, r.Exec, jobStopGrace) })
	}
	var st remote.JobStatus
	var err error
	if je, ok := r.Exec.(JobExecutor); ok {
		if err := je.StartJob(ctx, j, s.Cmd); err != nil {
			return res, err
		}
		st, err = je.WaitJob(ctx, j)
	} else {
		// driveJob is re-entrant: after a dropped connection it asks the
		// job's state again and follows its log on from the line shown.
		d := &jobDrive{from: 1}
		err = r.retrying(ctx, ev, s, func(ctx context.Context) error {
			var err error
			st, err = r.driveJob(ctx, j, s, d)
			return err
		})
	}
	var died *diedError
	if errors.As(err, &died) {
		// What the job logged up to its death is the step's output
		// (the host's stage log).
		if out, terr := j.Tail(ctx, r.Exec, jobLogLines); terr == nil {
			res.Stdout = []byte(out)
		}
		res.ExitCode = st.ExitCode
		return res, err
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

// jobStopGrace is how long a stopped job has between SIGTERM and SIGKILL
// (the host sampler writes its last line and exits at once).
const jobStopGrace = 10 * time.Second

// detach starts a job that runs beside the next steps and is not waited
// for; a job of this run that is still running (a resume) is left as it is.
func (r *Runner) detach(ctx context.Context, j remote.Job, s stages.Step) error {
	if je, ok := r.Exec.(JobExecutor); ok {
		return je.StartJob(ctx, j, s.Cmd)
	}
	st, err := j.Status(ctx, r.Exec)
	if err != nil {
		return err
	}
	if st.State == remote.JobRunning {
		r.say(s.Host, fmt.Sprintf("job %s already running (pid %d)", j.Name, st.Pid))
		return nil
	}
	_, err = remote.StartJob(ctx, r.Exec, s.Host, j.Dir, j.Name, s.Cmd)
	return err
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

// jobDrive is what driveJob keeps across re-attaches within one step.
type jobDrive struct {
	from    int  // the next log line to show
	started bool // this step started or re-attached to the job
}

func (r *Runner) driveJob(ctx context.Context, j remote.Job, s stages.Step, d *jobDrive) (remote.JobStatus, error) {
	st, err := j.Status(ctx, r.Exec)
	if err != nil {
		return st, err
	}
	switch {
	case s.Window != "" && deathOf(st) != "":
		// A measured run found dead (after a dropped connection, or by a
		// resume): starting it again alone would measure another window
		// than the other hosts'. Its host is recorded incomplete.
		return st, &diedError{job: j.Name, reason: deathOf(st)}
	case st.Killed() && d.started && s.StartAt:
		// The measured run died while the host was away (rebooted, or
		// killed): a fresh start would measure another window than the
		// other hosts'. Say so; a resume decides.
		return st, fmt.Errorf("job %s died while the host was unreachable (%s): its measured window is lost; resume the run to measure again", j.Name, jobEnd(st))
	case st.Killed():
		// Killed, not failed (an earlier attempt's job got SIGKILL, alone
		// or with its process group, or the host restarted): the step is
		// unfinished, and runs again without --from. The job is
		// idempotent by construction (loads skip loaded warehouses); its
		// log is appended to, so following goes on where it was.
		if st.State == remote.JobLost {
			r.say(s.Host, fmt.Sprintf("job %s died without an exit status (killed, or the host restarted); starting it again", j.Name))
		} else {
			r.say(s.Host, fmt.Sprintf("job %s was killed (exit %d, SIGKILL); starting it again", j.Name, st.ExitCode))
		}
		if _, err := remote.StartJob(ctx, r.Exec, s.Host, j.Dir, j.Name, s.Cmd); err != nil {
			return st, err
		}
	case st.State == remote.JobExited:
		// This run's job (the name is the run's) finished while the
		// orchestrator was away.
		r.say(s.Host, fmt.Sprintf("job %s already finished (exit %d)", j.Name, st.ExitCode))
		if d.from > 1 {
			// Show the lines written while the host was away.
			_, _ = j.FollowFrom(ctx, r.Exec, d.from)
		}
		return st, nil
	case st.State == remote.JobRunning:
		r.say(s.Host, fmt.Sprintf("re-attaching to job %s (pid %d)%s", j.Name, st.Pid, fromText(d.from)))
	default:
		if _, err := remote.StartJob(ctx, r.Exec, s.Host, j.Dir, j.Name, s.Cmd); err != nil {
			return st, err
		}
	}
	d.started = true
	poll := r.JobPoll
	if poll <= 0 {
		poll = time.Second
	}
	// A measured run past its known end (MaxRun from the common start)
	// is stopped: following and waiting end, the job is killed, and its
	// host is recorded as a death.
	wctx, stopWatch := r.watchRun(ctx, s, poll)
	defer stopWatch()
	ranPast := func(err error) (remote.JobStatus, error) {
		if !errors.Is(context.Cause(wctx), errRanPast) || ctx.Err() != nil {
			return st, err
		}
		if serr := j.Stop(ctx, r.Exec, jobStopGrace); serr != nil {
			return st, fmt.Errorf("job %s ran past its end (%s after the start); stopping it: %w", j.Name, plan.FormatDuration(s.MaxRun), serr)
		}
		return st, &diedError{job: j.Name, reason: fmt.Sprintf("ran past its end (ramp, duration and grace: %s after the start) and was stopped", plan.FormatDuration(s.MaxRun))}
	}
	// Follow streams the job's log until the process ends; a broken
	// connection ends it early with a TransportError, and the re-attach
	// goes on from the line it reached.
	d.from, err = j.FollowFrom(wctx, r.Exec, d.from)
	if err != nil {
		return ranPast(err)
	}
	st, err = j.Wait(wctx, r.Exec, poll)
	if err != nil {
		return ranPast(err)
	}
	if s.Window != "" && deathOf(st) != "" {
		return st, &diedError{job: j.Name, reason: deathOf(st)}
	}
	if st.State != remote.JobExited {
		return st, fmt.Errorf("job %s ended without an exit status (%s)", j.Name, st.State)
	}
	return st, nil
}

// errRanPast ends a measured run's wait once it is past its MaxRun.
var errRanPast = errors.New("ran past its end")

// startKey carries, in a step's context, how to read its common start
// instant (the start barrier's, or --start-at).
type startKey struct{}

func withStartInstant(ctx context.Context, f func() (time.Time, bool)) context.Context {
	return context.WithValue(ctx, startKey{}, f)
}

// watchRun is ctx, ended with errRanPast once s's start instant is known
// and s.MaxRun has passed since; a step without MaxRun or start instant
// is not watched. stop ends the watch.
func (r *Runner) watchRun(ctx context.Context, s stages.Step, poll time.Duration) (wctx context.Context, stop func()) {
	start, _ := ctx.Value(startKey{}).(func() (time.Time, bool))
	if s.MaxRun <= 0 || s.Window == "" || start == nil {
		return ctx, func() {}
	}
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		for {
			if at, ok := start(); ok && r.now().After(at.Add(s.MaxRun)) {
				cancel(errRanPast)
				return
			}
			if err := r.sleep(ctx, poll); err != nil {
				return
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	return wctx, func() { close(done); cancel(nil) }
}

func jobEnd(st remote.JobStatus) string {
	if st.State == remote.JobLost {
		return "no exit status: killed, or the host restarted"
	}
	return fmt.Sprintf("exit %d, SIGKILL", st.ExitCode)
}

func fromText(from int) string {
	if from <= 1 {
		return ""
	}
	return fmt.Sprintf(", its log from line %d", from)
}

// wait polls s.Cmd until it succeeds s.Settle times in a row. A command
// failure means "not yet"; a dropped connection is waited out (within the
// reconnect budget and the wait's own timeout) and polling goes on.
func (r *Runner) wait(ctx context.Context, ev Event, s stages.Step) (remote.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	s.Cmd.Quiet = true // a poll's output is noise on the console (it is logged)
	ok := 0
	var o *outage
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
		case transient(err) && ctx.Err() == nil && r.budget() >= 0:
			ok = 0
			if o == nil || r.now().Sub(o.back) > r.backoffMax() {
				o = &outage{since: r.now()}
			}
			if rerr := r.reconnect(ctx, ev, o, err); rerr != nil {
				if ctx.Err() != nil {
					return res, fmt.Errorf("not done after %s (the host was unreachable): %w", plan.FormatDuration(s.Timeout), err)
				}
				return res, rerr
			}
			continue // poll at once
		default:
			return res, err
		}
		if err := r.sleep(ctx, s.Poll); err != nil {
			return res, fmt.Errorf("not done after %s: %w", plan.FormatDuration(s.Timeout), err)
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
