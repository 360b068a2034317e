package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// MaxDialsPerURL bounds the connections a run establishes to one URL at
// once. pgxpool's MinConns dials every missing connection in its own
// goroutine at the same instant (pgxpool createIdleResources): 200,070 from
// one 100k host, 12,350 at one node from five hosts, far past a node's
// SYN and accept backlogs (net.core.somaxconn, 4096 by default since
// Linux 5.4, 128 before), whose overflow drops handshakes that then wait
// out TCP's retransmission timeouts and fail the pool's one-minute
// creation context. workload bounds its warm-up to 100 connections being
// established at a time per URL ("less than the default value for
// SOMAXCONN (128)"): pkg/workload/pgx_helpers.go:94 at 0cb10f369aa9
// (release-20.1), one such pool per URL, all URLs at once
// (pkg/workload/tpcc/tpcc.go:616).
const MaxDialsPerURL = 100

// neverRetire is a connection's idle time and lifetime in a run's pools:
// the pools are filled once (fillPools) and keep their connections, as
// workload's pgx v3 pool does; pgxpool's defaults (30 min idle, 1 h
// lifetime) would close connections during a 30-minute ramp or a wait at
// the start barrier and dial them again inside transactions.
const neverRetire = 100 * 365 * 24 * time.Hour

// keepConns sizes a run pool's config to perURL connections that are
// opened by fillPools, not by pgxpool's all-at-once MinConns, and never
// retired.
func keepConns(pc *pgxpool.Config, perURL int) {
	pc.MaxConns = int32(perURL)
	pc.MinConns = 0
	pc.MaxConnIdleTime = neverRetire
	pc.MaxConnLifetime = neverRetire
	pc.MaxConnLifetimeJitter = 0
}

// fillPools opens every pool's n connections before the run (HoldEach
// with nothing to do on each), so that no transaction dials.
func fillPools(ctx context.Context, urls []string, pools []*pgxpool.Pool, n int) error {
	err := HoldEach(ctx, pools, n, nil)
	if ae := (*AcquireError)(nil); errors.As(err, &ae) {
		return fmt.Errorf("tpcc run: connect %s (connection %d of %d): %w", redact.URL(urls[ae.Pool]), ae.Conn+1, n, ae.Err)
	}
	return err
}

// AcquireError is HoldEach's failure to open connection Conn (from 0) of
// pools[Pool]; each caller names the URL in its own words.
type AcquireError struct {
	Pool, Conn int
	Err        error
}

func (e *AcquireError) Error() string {
	return fmt.Sprintf("connection %d of pool %d: %v", e.Conn+1, e.Pool+1, e.Err)
}

func (e *AcquireError) Unwrap() error { return e.Err }

// HoldEach opens n connections in every pool and calls each (when not
// nil) on every one of them: each pool's at most MaxDialsPerURL at a time,
// the pools in parallel, as workload dials (one pool per URL, all URLs at
// once). A pool's connections are held until all n are open and done
// (so each Acquire opens a new one), then released to the pool as idle
// connections. The first error (an *AcquireError, or each's own) cancels
// the rest and is returned.
func HoldEach(ctx context.Context, pools []*pgxpool.Pool, n int,
	each func(ctx context.Context, pool, conn int, c *pgxpool.Conn) error) error {
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range pools {
		g.Go(func() error {
			held := make([]*pgxpool.Conn, n)
			defer func() {
				for _, c := range held {
					if c != nil {
						c.Release()
					}
				}
			}()
			pg, pctx := errgroup.WithContext(gctx)
			pg.SetLimit(MaxDialsPerURL)
			for j := range n {
				pg.Go(func() error {
					c, err := p.Acquire(pctx)
					if err != nil {
						return &AcquireError{Pool: i, Conn: j, Err: err}
					}
					held[j] = c
					if each == nil {
						return nil
					}
					return each(pctx, i, j, c)
				})
			}
			return pg.Wait()
		})
	}
	return g.Wait()
}
