package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// OpenPools opens one pool of perURL connections per URL, all opened
// before the run (at most MaxDialsPerURL at a time per URL, dial.go) and
// kept open, so the run does not pay for connecting. They are the run's
// pools: a profile's tests measure what its transactions send on them.
func OpenPools(ctx context.Context, urls []string, perURL int, mode pgx.QueryExecMode) ([]*pgxpool.Pool, error) {
	return OpenPoolsPinging(ctx, urls, perURL, mode, false)
}

// OpenPoolsPinging is OpenPools whose pools, when pingIdle, ping a
// connection idle for over a second as they hand it out (pgxpool's
// default), as the release's workload pools do (RunConfig.PingIdleConns).
func OpenPoolsPinging(ctx context.Context, urls []string, perURL int, mode pgx.QueryExecMode, pingIdle bool) ([]*pgxpool.Pool, error) {
	pools := make([]*pgxpool.Pool, 0, len(urls))
	for i, u := range urls {
		pc, err := pgxpool.ParseConfig(u)
		if err != nil {
			closePools(pools)
			return nil, fmt.Errorf("tpcc run: URL %d: %w", i+1, err)
		}
		keepConns(pc, perURL)
		// No ping when a connection idle for over a second is acquired
		// (pgxpool's default): it is a round trip inside the measured
		// transaction, and workload v20.1's pgx v3 pool sends none. A dead
		// connection fails its transaction and is not reused. A release
		// whose workload pools are pgxpool v5 keeps the ping.
		if !pingIdle {
			pc.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
		}
		// Statements are prepared once per connection and cached:
		// the run phase sends only Bind/Execute.
		pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
		SizeConnConfig(pc.ConnConfig)
		// Socket reads and writes that leave Go's monitor thread asleep
		// (rawio.go): a third less client CPU per New-Order here.
		rawIO(&pc.ConnConfig.Config)
		if mode != 0 {
			pc.ConnConfig.DefaultQueryExecMode = mode // --method
		}
		p, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			closePools(pools)
			return nil, fmt.Errorf("tpcc run: connect %s: %w", redact.URL(u), err)
		}
		pools = append(pools, p)
	}
	if err := fillPools(ctx, urls, pools, perURL); err != nil {
		closePools(pools)
		return nil, err
	}
	return pools, nil
}

// runStatements bounds the distinct statements the five transactions
// prepare per connection (33, 34 with serializable's index plans, after
// 300 of each type: New-Order's stock query per district and the BEGIN
// and COMMIT forms included), with room to spare so the cache never
// evicts and re-prepares. pgx allocates the cache's map for its full
// capacity and Go fills a map's slots to 7/8: 56 is the largest
// capacity in 64 slots, where 64 took 128 (BenchmarkConnBytes).
const runStatements = 56

// SizeConnConfig sizes a connection for TPC-C's few statements and small
// rows. pgx's defaults are for an application with many: two 512-entry
// caches (prepared statements, and descriptions for another exec mode),
// each allocated up front, were ~24 kB of every connection's ~110 kB
// measured by BenchmarkWaitMemory. The description cache is unused in
// QueryExecModeCacheStatement. Capacities a URL sets
// (statement_cache_capacity, description_cache_capacity) are kept unless
// they equal pgx's default, which ParseConfig cannot tell apart.
func SizeConnConfig(c *pgx.ConnConfig) {
	const pgxDefault = 512
	if c.StatementCacheCapacity == pgxDefault {
		c.StatementCacheCapacity = runStatements
	}
	if c.DescriptionCacheCapacity == pgxDefault && c.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		c.DescriptionCacheCapacity = 0
	}
}

// warmConnections holds all n connections of each pool at once (so each
// is a different one) and runs every transaction type on each, four
// connections at a time. Benchmark-only (see RunConfig.benchOnlyWarm).
func warmConnections(ctx context.Context, pools []*pgxpool.Pool, n int, homes []Home, newExec func(uint64) (Executor, *Rand)) error {
	for _, p := range pools {
		held := make([]*pgxpool.Conn, 0, n)
		release := func() {
			for _, c := range held {
				c.Release()
			}
		}
		for range n {
			c, err := p.Acquire(ctx)
			if err != nil {
				release()
				return err
			}
			held = append(held, c)
		}
		next := make(chan int, len(held))
		for i := range held {
			next <- i
		}
		close(next)
		g, gctx := errgroup.WithContext(ctx)
		for k := range 4 {
			w, _ := newExec(1<<32 + uint64(k))
			g.Go(func() error {
				for i := range next {
					for t := range numTxnTypes {
						_, err := w.Exec(gctx, PinnedConn{held[i].Conn()}, t, homes[i%len(homes)])
						if err != nil && !errors.Is(err, ErrNewOrderRollback) {
							return err
						}
					}
				}
				return nil
			})
		}
		err := g.Wait()
		release()
		if err != nil {
			return err
		}
	}
	return nil
}

func closePools(pools []*pgxpool.Pool) {
	for _, p := range pools {
		p.Close()
	}
}
