package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// Re-attaching after a dropped connection. At 86 hosts held for hours a
// network blip is ordinary: a step that waits on a host (a detached job,
// a poll, a transfer, an idempotent command) outlives it. The runner
// redials with capped, jittered backoff for up to a per-host budget,
// then runs the step again; a Job step is re-attached by its durable
// name and its log followed on from the line already shown, so the job
// itself is never started twice. A step that is not safe to repeat is
// never run again blindly: it stops the run with resume advice. Other
// hosts carry on meanwhile: each host's steps run in their own
// goroutine.

// Defaults of the re-attach loop.
const (
	// DefaultReconnectBudget is how long a host may stay away: long
	// enough for a reboot.
	DefaultReconnectBudget = 10 * time.Minute
	// DefaultReconnectBackoff is the first wait between redials; it
	// doubles up to DefaultReconnectBackoffMax, each wait jittered ±50%
	// so that hosts behind one failed switch do not redial in step.
	DefaultReconnectBackoff    = time.Second
	DefaultReconnectBackoffMax = 30 * time.Second
)

// Connector is an optional Executor capability: (re)opening the
// connection to a host without running anything. remote.SSH has it; the
// runner uses it to learn that a host is back before it re-attaches.
type Connector interface {
	Connect(ctx context.Context, host string) error
}

// UnreachableError is a host that stayed away past the reconnect budget
// while a step waited for it. It wraps the last transport error (exit
// code 10); the step, and the job it waited on, can be resumed.
type UnreachableError struct {
	Host     string
	Since    time.Time
	Budget   time.Duration
	Attempts int
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("unreachable since %s, %d reconnect attempts over the budget of %s (ssh.reconnect_budget, --reconnect-budget): %v",
		e.Since.UTC().Format(time.RFC3339), e.Attempts, e.Budget, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// NotRepeatedError is a dropped connection during a step that is not
// safe to run again by itself: it may have run in full, in part or not at
// all. It wraps the transport error (exit code 10).
type NotRepeatedError struct{ Err error }

func (e *NotRepeatedError) Error() string {
	return fmt.Sprintf("the connection dropped while this step ran, and it is not safe to repeat by itself (it may have run in part); check the host, then resume the run (it runs the step again): %v", e.Err)
}

func (e *NotRepeatedError) Unwrap() error { return e.Err }

// outage is one spell of a host being unreachable during a step.
type outage struct {
	since    time.Time
	attempts int
	back     time.Time // when the host was last reached again
}

func (r *Runner) budget() time.Duration {
	if r.ReconnectBudget == 0 {
		return DefaultReconnectBudget
	}
	return r.ReconnectBudget
}

// transient says whether err is a dropped or refused connection that
// a re-attach may cure. A refused host key or login is not: waiting
// does not change it (remote.Permanent), so the step fails at once.
func transient(err error) bool {
	var te *remote.TransportError
	var nr *NotRepeatedError
	var ue *UnreachableError
	return errors.As(err, &te) && !errors.As(err, &nr) && !errors.As(err, &ue) && !remote.Permanent(err)
}

// retrying runs op, and each time it fails with a transport error waits
// for the host to come back (reconnect) and runs it again. A step not
// safe to repeat is retried only when its command never started (the
// connection could not be opened); otherwise it stops.
func (r *Runner) retrying(ctx context.Context, ev Event, s stages.Step, op func(context.Context) error) error {
	var o *outage
	for {
		err := op(ctx)
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		if !s.SafeToRepeat() && !remote.NotStarted(err) {
			return &NotRepeatedError{Err: err}
		}
		if r.budget() < 0 {
			return err
		}
		// An op that failed again soon after the host came back is the
		// same outage (the backoff keeps growing); one that ran for a
		// while starts a new one.
		if o == nil || r.now().Sub(o.back) > r.backoffMax() {
			o = &outage{since: r.now()}
		}
		if err := r.reconnect(ctx, ev, o, err); err != nil {
			return err
		}
	}
}

func (r *Runner) backoff() time.Duration {
	if r.ReconnectBackoff > 0 {
		return r.ReconnectBackoff
	}
	return DefaultReconnectBackoff
}

func (r *Runner) backoffMax() time.Duration {
	if r.ReconnectBackoffMax > 0 {
		return r.ReconnectBackoffMax
	}
	return DefaultReconnectBackoffMax
}

// reconnect waits until host ev.Host answers again, telling the
// observers about every attempt, or fails with an UnreachableError once
// the outage has lasted the budget.
func (r *Runner) reconnect(ctx context.Context, ev Event, o *outage, cause error) error {
	budget := r.budget()
	deadline := o.since.Add(budget)
	for {
		left := deadline.Sub(r.now())
		if left <= 0 {
			return &UnreachableError{Host: ev.Host, Since: o.since, Budget: budget, Attempts: o.attempts, Err: cause}
		}
		o.attempts++
		e := ev
		e.Kind, e.Since, e.Attempt, e.BudgetLeft = HostUnreachable, o.since, o.attempts, left
		e.Err = errors.New(Redact(ev.Step.Cmd, cause.Error()))
		if err := r.emit(e); err != nil {
			return err
		}
		wait := r.backoff() << min(o.attempts-1, 16)
		wait = min(jitter(min(wait, r.backoffMax())), left)
		if o.attempts == 1 {
			wait = min(wait, r.backoff()/4) // a first, quick look: a reset link redials at once
		}
		if err := r.sleep(ctx, wait); err != nil {
			return err
		}
		cctx, cancel := context.WithDeadline(ctx, deadline)
		err := r.connect(cctx, ev.Host)
		cancel()
		if err == nil {
			o.back = r.now()
			back := ev
			back.Kind, back.Since, back.Attempt, back.Elapsed = HostReconnected, o.since, o.attempts, o.back.Sub(o.since)
			return r.emit(back)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var te *remote.TransportError
		if !errors.As(err, &te) || remote.Permanent(err) {
			return err // a refused host key, an unknown host: waiting will not help
		}
		cause = err
	}
}

// connect redials host through the executor, if it can.
func (r *Runner) connect(ctx context.Context, host string) error {
	if c, ok := r.Exec.(Connector); ok {
		return c.Connect(ctx, host)
	}
	return nil
}

// jitter scales d by a random factor in [0.5, 1.5).
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// UnreachableText is what console and status say about a host that is
// away: "host load2 unreachable since 15:04:05, retrying (3), budget
// left 9m12s".
func UnreachableText(host string, since time.Time, attempt int, left time.Duration) string {
	return fmt.Sprintf("host %s unreachable since %s, retrying (%d), budget left %s",
		host, since.Local().Format("15:04:05"), attempt, left.Round(time.Second))
}
