package tpcc

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// executors start the goroutines that run transactions: no-wait workers,
// or the executors serving the scheduler's terminals.
type executors struct {
	cfg     *RunConfig
	pl      plan
	pools   []*pgxpool.Pool
	g       *errgroup.Group
	ctx     context.Context // canceled at the end of the run
	newExec func(stream uint64) (Executor, *Rand)
	account func(t TxnType, latency time.Duration, retries int, err error)
	prof    LoadProfile
	joined  atomic.Int64 // terminals or workers that have started: the ramp's progress
}

// startNoWait starts n workers, each looping over its deck without
// keying or think time; response time is the transaction's.
func (e *executors) startNoWait(n int) {
	nW := len(e.pl.homes) / 10
	for k := range n {
		idx := noWaitHome(k, nW)
		home, u := e.pl.homes[idx], e.pl.pool[idx]
		w, rng := e.newExec(uint64(k) + 1)
		delay := e.prof.NoWaitStart(k, n, e.cfg.Ramp)
		e.g.Go(func() error {
			if delay > 0 {
				t := time.NewTimer(delay)
				select {
				case <-t.C:
				case <-e.ctx.Done():
					t.Stop()
					return nil
				}
			}
			e.joined.Add(1)
			deck := e.cfg.newDeck()
			for e.cfg.limit.take(e.ctx) {
				t := deck.Next(rng)
				begin := time.Now()
				retries, err := w.Exec(e.ctx, PgxPool{e.pools[u]}, t, home)
				if err != nil {
					err = fmt.Errorf("%s: %w", redact.URL(e.cfg.URLs[u]), err)
				}
				e.account(t, time.Since(begin), retries, err)
			}
			return nil
		})
	}
}

// startTerminals creates the paced terminals (clause 5.2.5) in a
// scheduler and perURL executors per pool serving them, until stop.
//
// fidelity:v20.1/D24
func (e *executors) startTerminals(start time.Time, r *Rand, perURL int, stop <-chan struct{}) {
	terms := make([]terminal, len(e.pl.homes))
	for i := range terms {
		t := &terms[i]
		t.home, t.url, t.deck = e.pl.homes[i], e.pl.pool[i], e.cfg.newDeck()
		t.next = t.deck.Next(r)
		// When a terminal first submits is the profile's: spread over
		// its first keying time, or workload's linear ramp.
		t.due = e.prof.FirstDue(r, i, len(terms), t.next, e.cfg) + int64(e.cfg.benchOnlyFirstDue)
	}
	sched := newScheduler(start, terms, len(e.pools))
	e.g.Go(func() error { sched.run(stop); return nil })
	for u := range e.pools {
		for k := range perURL {
			w, rng := e.newExec(uint64(u*perURL+k) + 1)
			e.g.Go(func() error {
				for {
					i, ok := sched.take(u)
					if !ok {
						return nil
					}
					t := &terms[i]
					if !t.started {
						t.started = true // owned by this executor until put back
						e.joined.Add(1)
					}
					due := sched.epoch.Add(time.Duration(t.due))
					if !e.cfg.limit.take(e.ctx) { // --max-rate, --max-ops
						sched.put(i)
						return nil
					}
					retries, err := w.Exec(e.ctx, PgxPool{e.pools[u]}, t.next, t.home)
					done := time.Now()
					if err != nil {
						err = fmt.Errorf("%s: %w", redact.URL(e.cfg.URLs[u]), err)
					}
					// Response time from due to done (clause 5.3).
					e.account(t.next, done.Sub(due), retries, err)
					// Think time follows the transaction, then the next
					// card's keying time (clause 5.2.5).
					wait := ThinkTime(rng, t.next, e.cfg.Wait)
					t.next = t.deck.Next(rng)
					wait += KeyingTime(t.next, e.cfg.Wait)
					t.due = done.Add(wait).Sub(sched.epoch).Nanoseconds()
					sched.put(i)
				}
			})
		}
	}
}
