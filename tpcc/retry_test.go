package tpcc

import (
	"context"
	"errors"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestBackoffCeiling(t *testing.T) {
	p := RetryPolicy{BaseBackoff: 2 * time.Millisecond, MaxBackoff: 500 * time.Millisecond}.WithDefaults()
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{
		{1, 0}, {2, 2 * time.Millisecond}, {3, 4 * time.Millisecond}, {4, 8 * time.Millisecond},
		{9, 256 * time.Millisecond}, {10, 500 * time.Millisecond}, {100, 500 * time.Millisecond},
		{1 << 30, 500 * time.Millisecond},
	} {
		if got := p.backoffCeiling(tc.n); got != tc.want {
			t.Errorf("ceiling before retry %d = %v, want %v", tc.n, got, tc.want)
		}
	}
	// Full jitter: uniform below the ceiling, so the mean is about half.
	var sum time.Duration
	const draws = 20000
	for range draws {
		d := p.backoff(4)
		if d < 0 || d >= 8*time.Millisecond {
			t.Fatalf("backoff %v outside [0, 8ms)", d)
		}
		sum += d
	}
	if mean := sum / draws; mean < 3500*time.Microsecond || mean > 4500*time.Microsecond {
		t.Errorf("mean backoff %v, want ~4ms (full jitter below 8ms)", mean)
	}
}

// TestRetryGivesUp checks both budgets: the count, and the time, each
// with the error naming the retries and the time they took.
func TestRetryGivesUp(t *testing.T) {
	conflict := &pgconn.PgError{Code: "40001", Message: "could not serialize access"}
	for _, tc := range []struct {
		name        string
		p           RetryPolicy
		wantRetries int
		minElapsed  time.Duration
	}{
		{"count", RetryPolicy{Retries: 3, Budget: time.Hour, BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, 3, 0},
		{"time", RetryPolicy{Retries: 1 << 30, Budget: 80 * time.Millisecond, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}, -1, 80 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p.WithDefaults()
			calls := 0
			start := time.Now()
			retries, err := p.Retry(context.Background(), PaymentTxn, Tally{}, func() error { calls++; return conflict })
			took := time.Since(start)
			var ex *RetriesExhaustedError
			if !errors.As(err, &ex) {
				t.Fatalf("err = %v, want *RetriesExhaustedError", err)
			}
			if !errors.Is(err, conflict) || !Retryable(err) {
				t.Error("the exhausted error does not wrap the last 40001")
			}
			if calls != retries+1 || ex.Retries != retries {
				t.Errorf("%d calls, %d retries reported, error says %d", calls, retries, ex.Retries)
			}
			if tc.wantRetries >= 0 && retries != tc.wantRetries {
				t.Errorf("retries = %d, want %d", retries, tc.wantRetries)
			}
			if ex.Elapsed < tc.minElapsed || took > tc.minElapsed+2*time.Second {
				t.Errorf("gave up after %v (call took %v), want >= %v", ex.Elapsed, took, tc.minElapsed)
			}
			if tc.name == "time" && retries < 10 {
				t.Errorf("only %d retries in an 80ms budget with <=5ms backoffs", retries)
			}
			if !regexp.MustCompile(`^gave up after \d+ retries over [0-9.]+m?s: .*could not serialize`).MatchString(err.Error()) {
				t.Errorf("error %q does not say gave up after N retries over T", err)
			}
		})
	}
}

// TestRetryStopsOnSuccessAndOtherErrors: a success or a non-retryable
// error ends the loop at once, and cancellation ends a backoff.
func TestRetryStopsOnSuccessAndOtherErrors(t *testing.T) {
	p := RetryPolicy{BaseBackoff: time.Millisecond, MaxBackoff: time.Millisecond}.WithDefaults()
	n := 0
	retries, err := p.Retry(context.Background(), PaymentTxn, Tally{}, func() error {
		n++
		if n < 3 {
			return &pgconn.PgError{Code: "40P01"}
		}
		return nil
	})
	if retries != 2 || err != nil {
		t.Errorf("two deadlocks then success: %d retries, %v", retries, err)
	}
	other := errors.New("boom")
	if r, err := p.Retry(context.Background(), PaymentTxn, Tally{}, func() error { return other }); r != 0 || err != other {
		t.Errorf("non-retryable: %d retries, %v", r, err)
	}
	// The first retry is immediate, the second waits a backoff drawn
	// below an hour: cancellation must end it.
	p = RetryPolicy{BaseBackoff: time.Hour, MaxBackoff: time.Hour}.WithDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	r, err := p.Retry(ctx, PaymentTxn, Tally{}, func() error { return &pgconn.PgError{Code: "40001"} })
	if took := time.Since(start); took > 5*time.Second || r != 2 || !Retryable(err) {
		t.Errorf("cancelled backoff: %d retries, %v after %v", r, err, took)
	}
}

// TestRetryFirstImmediateAndCosted: one conflict is retried at once even
// with an hour of base backoff; the failed attempts' time and the
// backoffs are counted per transaction type.
func TestRetryFirstImmediateAndCosted(t *testing.T) {
	var cnt atomic.Pointer[counters]
	cnt.Store(newCounters(1))
	tally := Tally{&cnt}
	p := RetryPolicy{BaseBackoff: time.Hour, MaxBackoff: time.Hour}.WithDefaults()
	n := 0
	start := time.Now()
	retries, err := p.Retry(context.Background(), PaymentTxn, tally, func() error {
		n++
		if n == 1 {
			time.Sleep(20 * time.Millisecond) // the failed attempt's work
			return &pgconn.PgError{Code: "40001"}
		}
		return nil
	})
	if took := time.Since(start); retries != 1 || err != nil || took > 10*time.Second {
		t.Fatalf("one conflict: %d retries, %v after %v; want 1 retry at once", retries, err, took)
	}
	c := cnt.Load()
	if work := time.Duration(c.retryWork[PaymentTxn].Load()); work < 20*time.Millisecond || work > 10*time.Second {
		t.Errorf("failed attempt's time counted %v, want >= 20ms", work)
	}
	if b := c.retryBackoff[PaymentTxn].Load(); b != 0 {
		t.Errorf("backoff counted %v before the first retry, want 0", time.Duration(b))
	}
	if o := c.retryWork[NewOrderTxn].Load(); o != 0 {
		t.Errorf("another type's retry time %v, want 0", time.Duration(o))
	}

	// Two conflicts: the second retry sleeps, and the sleep is counted.
	p = RetryPolicy{BaseBackoff: 20 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}.WithDefaults()
	n = 0
	for c.retryBackoff[PaymentTxn].Load() == 0 && n < 1000 {
		k := 0
		if _, err := p.Retry(context.Background(), PaymentTxn, tally, func() error {
			k++
			n++
			if k <= 2 {
				return &pgconn.PgError{Code: "40001"}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if b := time.Duration(c.retryBackoff[PaymentTxn].Load()); b <= 0 || b >= 20*time.Millisecond*time.Duration(n) {
		t.Errorf("backoff counted %v over %d calls, want in (0, 20ms each)", b, n)
	}
}
