package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// RetryPolicy says how a transaction that the database aborted with a
// serialization failure or a deadlock (SQLSTATE 40001, 40P01) is retried.
//
// The first retry is immediate; backoff starts at the second. A
// serialization failure usually means the transaction that won has
// committed already (PostgreSQL's first-updater-wins reports it once the
// winner commits, SSI once a conflict cycle is closed), so the retry finds
// the row free and, with its new snapshot, sees the winner's write:
// sleeping first only added latency and left the worker idle (a run
// measured the machine half idle, workers asleep in backoff). A second
// failure of the same transaction means a hot spot others keep hitting,
// and retrying at once each time turned contention into a stampede (issue
// 14: a New-Order used up 100 retries in 0.6 s on a serializable
// PostgreSQL), so from then on capped exponential backoff with "full
// jitter": before retry n ≥ 2 the worker sleeps a uniform random time in
// [0, min(MaxBackoff, BaseBackoff·2^(n-2))), so colliding transactions
// spread out and the expected wait stays bounded.
// A transaction gives up when either budget is spent: Retries attempts or
// Budget of wall time since its first attempt (whichever comes first), and
// the error says so.
type RetryPolicy struct {
	// At most this many retries per transaction (0: DefaultRetries).
	Retries int `flag:"max-retries" usage:"retries per transaction of serialization failures and deadlocks (40001/40P01), with capped exponential backoff and full jitter (0: the default)"`
	// And at most this long from the first attempt (0: DefaultRetryBudget).
	Budget time.Duration `flag:"retry-budget" usage:"a transaction gives up when its retries have taken this long, even below --max-retries"`
	// The first backoff's upper bound (0: DefaultBaseBackoff).
	BaseBackoff time.Duration `flag:"retry-backoff" usage:"upper bound of the first retry's random backoff; it doubles per retry (full jitter)"`
	// Cap on every backoff's upper bound (0: DefaultMaxBackoff).
	MaxBackoff time.Duration `flag:"retry-max-backoff" usage:"cap on a retry's backoff"`
	// None makes the first failure final (workload's --txn-retries=false).
	None bool
}

// The defaults. 100 retries at up to 500 ms apart take ~25 s in the
// worst case, within the 60 s budget; a transaction that needs more is
// not contended but stuck, and the run should say so.
const (
	DefaultRetries     = 100
	DefaultRetryBudget = 60 * time.Second
	DefaultBaseBackoff = 2 * time.Millisecond
	DefaultMaxBackoff  = 500 * time.Millisecond
)

// WithDefaults returns p with defaults for zero fields.
func (p RetryPolicy) WithDefaults() RetryPolicy {
	if p.Retries == 0 {
		p.Retries = DefaultRetries
	}
	if p.Budget == 0 {
		p.Budget = DefaultRetryBudget
	}
	if p.BaseBackoff == 0 {
		p.BaseBackoff = DefaultBaseBackoff
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = DefaultMaxBackoff
	}
	return p
}

func (p RetryPolicy) validate() error {
	switch {
	case p.Retries < 0:
		return fmt.Errorf("--max-retries must be >= 0, got %d", p.Retries)
	case p.Budget < 0:
		return fmt.Errorf("--retry-budget must be >= 0, got %v", p.Budget)
	case p.BaseBackoff < 0 || p.MaxBackoff < 0:
		return fmt.Errorf("retry backoff must be >= 0, got base %v, max %v", p.BaseBackoff, p.MaxBackoff)
	}
	return nil
}

// backoffCeiling is the upper bound of the sleep before retry n (1-based):
// 0 for the first, then BaseBackoff·2^(n-2), capped at MaxBackoff (without
// overflowing).
func (p RetryPolicy) backoffCeiling(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := p.BaseBackoff
	for i := 2; i < n && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// backoff draws the full-jitter sleep before retry n. The jitter comes
// from math/rand/v2's per-thread source, not the worker's TPC-C stream,
// so timing never shifts the transactions' inputs.
func (p RetryPolicy) backoff(n int) time.Duration {
	c := p.backoffCeiling(n)
	if c <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(c)))
}

// RetriesExhaustedError is a transaction that kept failing with a
// retryable error until its retry budget ran out.
type RetriesExhaustedError struct {
	Retries int           // retries made
	Elapsed time.Duration // from the first attempt to giving up
	Err     error         // the last attempt's error
}

func (e *RetriesExhaustedError) Error() string {
	return fmt.Sprintf("gave up after %d retries over %s: %v", e.Retries, e.Elapsed.Round(time.Millisecond), e.Err)
}

func (e *RetriesExhaustedError) Unwrap() error { return e.Err }

// Retry runs fn, a transaction of type typ, again while it fails with a
// serialization failure or a deadlock, which are the database asking for
// a retry, not errors of the run: the retries are returned apart from
// the error, and what they cost goes to tally: the time of the failed
// attempts (work done again) and of the backoff sleeps. fn must not hold
// a connection across calls: the backoff sleeps without one, so in wait
// mode other terminals use the connection meanwhile. A profile that
// retries as the pipelined one does (a fresh transaction, capped backoff
// with full jitter) calls it with its Session's policy, whose defaults
// are applied (a zero Budget gives up at the first failure).
func (p RetryPolicy) Retry(ctx context.Context, typ TxnType, tally Tally, fn func() error) (retries int, err error) {
	start := time.Now()
	attempt := start
	for {
		err = fn()
		if err == nil || !Retryable(err) || ctx.Err() != nil {
			return retries, err
		}
		now := time.Now()
		tally.RetryCost(typ, now.Sub(attempt), 0)
		elapsed := now.Sub(start)
		if p.None || retries >= p.Retries || elapsed >= p.Budget {
			return retries, &RetriesExhaustedError{Retries: retries, Elapsed: elapsed, Err: err}
		}
		retries++
		d := p.backoff(retries)
		if rest := p.Budget - elapsed; d > rest {
			d = rest // the last attempt still happens within the budget
		}
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return retries, err
			}
			tally.RetryCost(typ, 0, d)
		}
		attempt = time.Now()
	}
}

// Retryable reports whether err is a serialization failure (40001) or a
// deadlock (40P01).
func Retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}
