package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// DefaultProfile is a dialect's profile when none is chosen: workload's
// load on CockroachDB, where the published results come from; benchrig's
// pipelined load on PostgreSQL.
func DefaultProfile(d Dialect) Profile {
	if d == Cockroach {
		return ProfileWorkload
	}
	return ProfilePipelined
}

// loadProfile is what Run asks of a profile.
type loadProfile interface {
	name() Profile
	// conns is the connection count over all URLs when --conns is not
	// given, for workers executors on this host.
	conns(cfg *RunConfig, workers int) int
	// runConstants is C-Run for a database loaded with m.
	runConstants(r *Rand, m Meta) Constants
	// exec runs one transaction of type t for a terminal at home.
	exec(ctx context.Context, w *worker, db connPool, t TxnType, home warehouseDistrict) (int, error)
	// firstDue is when paced terminal i (of n, in plan order) first
	// submits, its first card being first: ns after the run's start.
	firstDue(r *Rand, i, n int, first TxnType, cfg *RunConfig) int64
	// noWaitStart is when no-wait worker k of n starts.
	noWaitStart(k, n int, ramp time.Duration) time.Duration
	// warm prepares the pools before the run starts.
	warm(ctx context.Context, pools []*pgxpool.Pool, perURL int, d Dialect) error
}

// newProfile returns the profile p (which must be valid), for a run on
// dialect d: "" is the dialect's default.
func newProfile(p Profile, d Dialect, cfg *RunConfig, parts Partitions) loadProfile {
	if p == "" {
		p = DefaultProfile(d)
	}
	switch p {
	case ProfileWorkload:
		return &workloadProfile{dialect: d, retryLimit: cfg.SavepointRetryLimit, noRetry: cfg.Retry.None, active: newActiveSet(parts)}
	case ProfileFunctions:
		return functionsProfile{}
	}
	return pipelinedProfile{}
}

// activeSet is the active warehouses of every partition, in partition
// order (workload's partitioner.totalElems), indexed without listing
// them: a plan's validation sizes every host's run through the profile,
// and a 100,000-warehouse list per host and round made that cost tens of
// megabytes.
type activeSet struct {
	parts Partitions
	start []int // start[i]: index of partition i's first active warehouse
	n     int
}

func newActiveSet(p Partitions) activeSet {
	s := activeSet{parts: p, start: make([]int, p.Count)}
	for i := range p.Count {
		s.start[i] = s.n
		lo, hi := p.ActiveRange(i)
		s.n += max(hi-lo+1, 0)
	}
	return s
}

// len is the number of active warehouses.
func (s activeSet) len() int { return s.n }

// at is the k-th active warehouse (0 <= k < len()).
func (s activeSet) at(k int) int32 {
	i := sort.Search(len(s.start), func(i int) bool { return s.start[i] > k }) - 1
	lo, _ := s.parts.ActiveRange(i)
	return int32(lo + k - s.start[i])
}

// pipelinedProfile is ProfilePipelined: the driver's transactions in
// new_order.go, payment.go, ... and its sizing in run.go.
type pipelinedProfile struct{}

func (pipelinedProfile) name() Profile { return ProfilePipelined }

func (pipelinedProfile) conns(cfg *RunConfig, workers int) int {
	if cfg.Wait == 0 {
		return workers
	}
	return (workers + WaitTerminalsPerConn - 1) / WaitTerminalsPerConn
}

func (pipelinedProfile) runConstants(r *Rand, m Meta) Constants { return NewRunConstants(r, m.Load) }

func (pipelinedProfile) exec(ctx context.Context, w *worker, db connPool, t TxnType, home warehouseDistrict) (int, error) {
	return w.exec(ctx, db, t, home)
}

// firstDue spreads the terminals over their first keying time, so they
// do not all submit at once; the ramp only delays measuring.
func (pipelinedProfile) firstDue(r *Rand, _, _ int, first TxnType, cfg *RunConfig) int64 {
	return int64(r.Float64() * float64(KeyingTime(first, cfg.Wait)))
}

func (pipelinedProfile) noWaitStart(int, int, time.Duration) time.Duration { return 0 }

func (pipelinedProfile) warm(context.Context, []*pgxpool.Pool, int, Dialect) error { return nil }

// workloadProfile is ProfileWorkload (wl_txn.go holds its transactions).
type workloadProfile struct {
	dialect    Dialect
	retryLimit int       // give up after this many savepoint retries (0: never, as workload)
	noRetry    bool      // --txn-retries=false: the first retryable error is final
	active     activeSet // the run's active warehouses, all partitions
	// trips is the round trips of the latest transaction of each type,
	// retries included: what a test compares with workload's count.
	trips [numTxnTypes]atomic.Int64
}

func (*workloadProfile) name() Profile { return ProfileWorkload }

// conns is workload's default --conns: 2 per active warehouse of the
// whole run (not of this host) in wait mode, the workers otherwise
// (--workers, default 10 per active warehouse, again of the whole run).
// Every host opens that many, spread over its URLs.
//
// fidelity:v20.1/D18
func (*workloadProfile) conns(cfg *RunConfig, _ int) int {
	if cfg.Wait == 0 {
		if cfg.Workers > 0 {
			return cfg.Workers
		}
		return 10 * cfg.ActiveWarehouses
	}
	return workloadConnsPerWarehouse * cfg.ActiveWarehouses
}

// workloadConnsPerWarehouse is workload's numConnsPerWarehouse.
const workloadConnsPerWarehouse = 2

// runConstants are workload's: C for C_LAST is the data's C-Load (C-Run =
// C-Load), C for C_ID and OL_I_ID come from the data seed as workload
// draws them.
//
// fidelity:v20.1/D28
func (*workloadProfile) runConstants(_ *Rand, m Meta) Constants {
	c := WorkloadConstants(m.Seed)
	c.CLast = m.Load.CLast
	return c
}

// firstDue starts paced terminals as workload starts its workers: worker
// i of n at i × ramp / n, in workload's worker order (round-robin over
// the warehouses: every warehouse's first terminal, then every second
// one, ...), then sleeping its first keying time.
//
// fidelity:v20.1/D23
func (*workloadProfile) firstDue(_ *Rand, i, n int, first TxnType, cfg *RunConfig) int64 {
	nW := n / 10
	rank := i
	if nW > 0 {
		rank = (i%10)*nW + i/10 // plan order is warehouse-major, 10 terminals each
	}
	return int64(rampOffset(rank, n, cfg.Ramp) + KeyingTime(first, cfg.Wait))
}

func (*workloadProfile) noWaitStart(k, n int, ramp time.Duration) time.Duration {
	return rampOffset(k, n, ramp)
}

// rampOffset is workload's start of worker i of n over ramp: i × (ramp /
// n), the division first, as workload computes it.
//
// fidelity:v20.1/D23
func rampOffset(i, n int, ramp time.Duration) time.Duration {
	if ramp <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(i) * (ramp / time.Duration(n))
}

// warm is workload's warm-up: every connection of every pool is opened
// (at most 100 dials at a time, under the SYN backlog) and held at once
// so that each is a distinct connection, its fixed statements are
// prepared on it (workload's --method=prepare prepares them on every
// connection), and all are released.
//
// fidelity:v20.1/D21
func (p *workloadProfile) warm(ctx context.Context, pools []*pgxpool.Pool, perURL int, d Dialect) error {
	stmts := wlPrepared(d)
	sem := make(chan struct{}, 100)
	var held []*pgxpool.Conn
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	conns := make([][]*pgxpool.Conn, len(pools))
	g, gctx := errgroup.WithContext(ctx)
	for i, pool := range pools {
		conns[i] = make([]*pgxpool.Conn, perURL)
		for j := range perURL {
			// At most 100 goroutines exist at once: a 100k host opens
			// 200,000 connections.
			sem <- struct{}{}
			g.Go(func() error {
				defer func() { <-sem }()
				c, err := pool.Acquire(gctx)
				if err != nil {
					return fmt.Errorf("warm connection %d of URL %d: %w", j+1, i+1, err)
				}
				conns[i][j] = c
				if c.Conn().Config().DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
					return nil // --method other than prepare: nothing to prepare
				}
				for _, s := range stmts {
					if _, err := c.Conn().Prepare(gctx, s, s); err != nil {
						return fmt.Errorf("prepare on connection %d of URL %d: %w", j+1, i+1, err)
					}
				}
				return nil
			})
		}
	}
	err := g.Wait()
	for _, cs := range conns {
		for _, c := range cs {
			if c != nil {
				held = append(held, c)
			}
		}
	}
	if err != nil {
		return err
	}
	if len(held) != perURL*len(pools) {
		return errors.New("warm: not every connection was opened")
	}
	return nil
}

// loadProfile resolves cfg.Profile for this run: the dialect is asked
// first (one connection, closed again) since the default and the SQL
// depend on it, and the connection count the pools open depends on the
// profile.
func (cfg *RunConfig) loadProfile(ctx context.Context, parts Partitions) (loadProfile, error) {
	conn, err := pgx.Connect(ctx, cfg.URLs[0])
	if err != nil {
		return nil, fmt.Errorf("tpcc run: connect %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	defer conn.Close(context.Background())
	d, err := DetectDialect(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	if err := fnRefused(cfg.Profile, d); err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}
	return newProfile(cfg.Profile, d, cfg, parts), nil
}
