package workload

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc"
)

// Profile is tpcc.ProfileWorkload, CockroachDB workload's load, as a
// tpcc.LoadProfile (txn.go holds its transactions).
type Profile struct {
	dialect    tpcc.Dialect
	retryLimit int       // give up after this many savepoint retries (0: never, as workload)
	noRetry    bool      // --txn-retries=false: the first retryable error is final
	active     activeSet // the run's active warehouses, all partitions
	// prepare: --method prepare (workload's default), the fixed
	// statements (stmtList) prepared on every connection; stmts is their
	// descriptions, shared by every connection (prepare.go).
	prepare bool
	// emptyDistrictFails: Delivery fails on a district without an
	// undelivered order, as the release's workload does
	// (tpcc.RunConfig.EmptyDistrictDeliveryFails).
	emptyDistrictFails bool
	stmtList           []wlStmt
	stmts              atomic.Pointer[stmtSet]
	// trips is the round trips of the latest transaction of each type,
	// retries included: what a test compares with workload's count.
	trips [tpcc.NumTxnTypes]atomic.Int64
}

// New is the workload profile for a run of cfg on dialect d over parts.
func New(d tpcc.Dialect, cfg *tpcc.RunConfig, parts tpcc.Partitions) *Profile {
	prepare := cfg.QueryExecMode == 0 || cfg.QueryExecMode == pgx.QueryExecModeCacheStatement
	return &Profile{dialect: d, retryLimit: cfg.SavepointRetryLimit, noRetry: cfg.Retry.None, active: newActiveSet(parts),
		prepare: prepare, stmtList: wlPrepared(d), emptyDistrictFails: cfg.EmptyDistrictDeliveryFails}
}

// activeSet is the active warehouses of every partition, in partition
// order (workload's partitioner.totalElems), indexed without listing
// them: a plan's validation sizes every host's run through the profile,
// and a 100,000-warehouse list per host and round made that cost tens of
// megabytes.
type activeSet struct {
	parts tpcc.Partitions
	start []int // start[i]: index of partition i's first active warehouse
	n     int
}

func newActiveSet(p tpcc.Partitions) activeSet {
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

// worker is the profile's tpcc.Executor: one executor goroutine's
// random stream and C-Run, the run's BEGIN, and the tally it records
// the audit's figures in.
type worker struct {
	p         *Profile
	rng       *tpcc.Rand
	constants tpcc.Constants
	rwBegin   string
	tally     tpcc.Tally
	lastTotal float64 // New-Order's displayed total, kept so it is computed
	eqb       pgx.ExtendedQueryBuilder
}

// NewExecutor is a worker of the session.
func (p *Profile) NewExecutor(s tpcc.Session) tpcc.Executor {
	return &worker{p: p, rng: s.Rand, constants: s.Constants, rwBegin: tpcc.BeginSQL(s.ReadWrite), tally: s.Tally}
}

// Exec runs one transaction of type t the way workload does.
func (w *worker) Exec(ctx context.Context, db tpcc.Pool, t tpcc.TxnType, home tpcc.Home) (int, error) {
	return w.p.exec(ctx, w, db, t, home)
}

// Name is tpcc.ProfileWorkload.
func (*Profile) Name() tpcc.Profile { return tpcc.ProfileWorkload }

// Conns is workload's default --conns: 2 per active warehouse of the
// whole run (not of this host) in wait mode, the workers otherwise
// (--workers, default 10 per active warehouse, again of the whole run).
// Every host opens that many, spread over its URLs.
//
// fidelity:v20.1/D18
func (*Profile) Conns(cfg *tpcc.RunConfig, _ int) int {
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

// RunConstants are workload's: C for C_LAST is the data's C-Load (C-Run =
// C-Load), C for C_ID and OL_I_ID come from the data seed as workload
// draws them.
//
// fidelity:v20.1/D28
func (*Profile) RunConstants(_ *tpcc.Rand, m tpcc.Meta) tpcc.Constants {
	c := tpcc.WorkloadConstants(m.Seed)
	c.CLast = m.Load.CLast
	return c
}

// FirstDue starts paced terminals as workload starts its workers: worker
// i of n at i × ramp / n, in workload's worker order (round-robin over
// the warehouses: every warehouse's first terminal, then every second
// one, ...), then sleeping its first keying time.
//
// fidelity:v20.1/D23
func (*Profile) FirstDue(_ *tpcc.Rand, i, n int, first tpcc.TxnType, cfg *tpcc.RunConfig) int64 {
	nW := n / 10
	rank := i
	if nW > 0 {
		rank = (i%10)*nW + i/10 // plan order is warehouse-major, 10 terminals each
	}
	return int64(rampOffset(rank, n, cfg.Ramp) + tpcc.KeyingTime(first, cfg.Wait))
}

// NoWaitStart starts no-wait worker k of n at k × ramp / n, as workload
// starts its workers.
func (*Profile) NoWaitStart(k, n int, ramp time.Duration) time.Duration {
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

// Warm is workload's warm-up: every connection of a pool is opened and
// held (so that each is a distinct connection) and its fixed statements
// are prepared on it (workload's --method=prepare prepares them on every
// connection as its pool dials it: at most 100 at a time per URL, every
// URL at once, as tpcc.MaxDialsPerURL says; tpcc.HoldEach is that rule),
// then the pool's connections are released. The URLs go in parallel: one
// after the other, a 100k host's 81 URLs took 30 minutes to prepare
// (BenchmarkHost200k). A connection's statements are prepared in one
// round trip (prepareConn).
//
// fidelity:v20.1/D21
func (p *Profile) Warm(ctx context.Context, pools []*pgxpool.Pool, perURL int, _ tpcc.Dialect) error {
	err := tpcc.HoldEach(ctx, pools, perURL, func(ctx context.Context, i, j int, c *pgxpool.Conn) error {
		if !p.prepare {
			return nil // --method other than prepare: nothing to prepare
		}
		if _, err := p.prepareConn(ctx, c.Conn()); err != nil {
			return fmt.Errorf("connection %d of URL %d: %w", j+1, i+1, err)
		}
		return nil
	})
	if ae := (*tpcc.AcquireError)(nil); errors.As(err, &ae) {
		return fmt.Errorf("warm connection %d of URL %d: %w", ae.Conn+1, ae.Pool+1, ae.Err)
	}
	return err
}
