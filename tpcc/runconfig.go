package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/procs"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// CockroachFixtures is what Run asks of CockroachDB's own fixtures
// before a run, as workload's run does them (crdb/fixtures, for the
// release the command layer knows or asks): tpcc declares it and knows
// no release.
type CockroachFixtures interface {
	// Detect asks the server what the fixtures need of its release when
	// the command line did not say.
	Detect(ctx context.Context, db Querier) error
	// Strategy names the partitioning strategy for the line Run prints.
	Strategy() string
	// Partition lays the tables out in parts unless they already are.
	Partition(ctx context.Context, db DB, parts Partitions) error
	// ScatterStatements are --scatter's statements.
	ScatterStatements() []string
}

// RunConfig is `benchrig tpcc run`. Flag names follow CockroachDB's
// `workload run tpcc` where the concept is the same.
type RunConfig struct {
	URLs []string // connection URLs, spread across terminals

	Warehouses       int   // W loaded in the database
	ActiveWarehouses int   // warehouses with terminals (0: Warehouses)
	Partitions       int   // 0 or 1: unpartitioned
	Affinity         []int // partitions this host drives (nil: all)
	// On CockroachDB, a run with Partitions > 1 first partitions the
	// tables if they are not yet (idempotent), as CockroachDB's workload
	// does: the recipes partition with a short run after the import.
	// Cockroach does it (and --scatter); the command layer gives it.
	Cockroach CockroachFixtures

	Ramp, Duration time.Duration
	// Wait scales keying and think times: 1 is the spec (10 terminals
	// per warehouse), 0 is no-wait mode with Workers goroutines, and a
	// fraction such as 0.01 shrinks waits for tests.
	Wait    float64
	Workers int // no-wait mode (0: 10 per active warehouse)
	Conns   int // total connections over all URLs (0: one per WaitTerminalsPerConn terminals in wait mode, Workers otherwise)
	// Procs is Go's GOMAXPROCS for the run: ProcsFollowDemand starts at
	// one P and follows the client's CPU use (package procs, which says
	// why), N > 0 fixes it, 0 leaves it as the process has it (tests that
	// run several Runs at once in one process).
	Procs int

	DisplayEvery   time.Duration   // progress period and histogram tick (0: 1s)
	Histograms     io.Writer       // ndjson ticks (nil: none); flushed every tick if it has Flush() error
	Ticks          result.TickSink // per-tick metrics, the console's periodic lines as data (nil: none)
	TolerateErrors bool            // count errors instead of stopping
	// NoVerdict reports the audit checks but judges nothing: a failed
	// check is no error and the result says judged: false. The recipes'
	// 1-minute partitioning run is such a run: workload's PostRun prints
	// its figures and returns nil, whatever they are.
	NoVerdict bool
	StartAt   time.Time // zero: now
	// ReadyFile and StartFile are the start barrier (ready.go): both or
	// neither, and not with StartAt.
	ReadyFile, StartFile string
	Seed                 uint64      // run randomness (0: from the clock)
	Retry                RetryPolicy // for 40001/40P01: backoff and budgets (zero fields: defaults)
	Isolation            pgx.TxIsoLevel

	// CockroachDB workload's run flags (workloadflags.go).
	URLPerAffinity bool // the release's URL mapping and worker count (crdb.Release.URLPerAffinity; false: v20.1's)
	// EmptyDistrictDeliveryFails: the workload profile's Delivery fails
	// on a district without an undelivered order, as the release's
	// workload does (crdb.Release.DeliveryEmptyDistrictFails; false:
	// the district is skipped, clause 2.7.4.2).
	EmptyDistrictDeliveryFails bool
	// PingIdleConns: the pools ping a connection idle for over a second
	// before handing it to a transaction, one more round trip, as the
	// release's workload pools do (crdb.Release.WorkloadPoolPingsIdle;
	// false: v20.1's pgx v3 pool, no ping).
	PingIdleConns        bool
	Imported             bool              // --imported: the data was IMPORTed from workload:// sources (C_LAST's C-Load 0 without benchrig_meta)
	Mix                  *Mix              // --mix (nil: the spec's deck)
	MaxRate              float64           // --max-rate: transactions/s over this host (0: unlimited)
	MaxOps               uint64            // --max-ops: end the run after this many (0: unlimited)
	QueryExecMode        pgx.QueryExecMode // --method (0: prepare)
	Scatter              bool              // --scatter: ALTER TABLE ... SCATTER before the run (Cockroach.ScatterStatements)
	DataSeed             uint64            // --seed: the data generator's seed (0: 1, workload's); gives C-Load without benchrig_meta, must match it with
	HistogramsMaxLatency time.Duration     // --histograms-max-latency (0: 100s)
	limit                *opLimiter

	// Profile is the load profile's name ("": the dialect's default,
	// workload's on CockroachDB, pipelined on PostgreSQL), which
	// ChooseProfile turns into the run's LoadProfile (loadprofile.go), and
	// SavepointRetryLimit the workload profile's retries per transaction
	// before it gives up (0: never, as workload).
	Profile             Profile
	SavepointRetryLimit int
	// ChooseProfile makes the named profile a value (tpcc/profile.Choose,
	// which the command layer gives; nil: only the pipelined profile).
	ChooseProfile ChooseProfile

	Out io.Writer // progress and final report (nil: discard)
	Now func() time.Time

	// benchOnlyLoaded, when > 0, is how many warehouses the database
	// really holds: the terminals of Warehouses warehouses are folded
	// onto them (home w -> the first + (w - first) mod benchOnlyLoaded).
	// Only this package's benchmarks set it (it is unexported and has no
	// flag): it lets a memory benchmark run 10,000 real terminals and
	// their connections against a small loaded database. A folded run's
	// load per warehouse is not TPC-C's; its tpmC means nothing.
	benchOnlyLoaded int
	// benchOnlyWarm runs each transaction type once on every connection
	// before the run, so that a memory benchmark measures connections as
	// a long run leaves them (all statements prepared, buffers grown)
	// without running long enough for that.
	benchOnlyWarm bool
	// benchOnlyStarted, when set, is called once the executors run.
	benchOnlyStarted func()
	// benchOnlyFirstDue delays every paced terminal's first transaction
	// by this much: BenchmarkHost200k measures terminals scheduled and
	// waiting, without the transactions a 2-core machine cannot serve.
	benchOnlyFirstDue time.Duration
}

// newDeck deals --mix (validated by defaults) or the spec's deck.
func (cfg *RunConfig) newDeck() Deck {
	if cfg.Mix == nil {
		return NewDeck()
	}
	d, _ := NewDeckMix(*cfg.Mix)
	return d
}

func (cfg *RunConfig) defaults() error {
	if len(cfg.URLs) == 0 {
		return errors.New("tpcc run: no connection URL")
	}
	if len(cfg.URLs) > 1<<16 {
		return errors.New("tpcc run: too many URLs")
	}
	if cfg.Warehouses < 1 {
		return fmt.Errorf("tpcc run: --warehouses must be >= 1, got %d", cfg.Warehouses)
	}
	if cfg.ActiveWarehouses == 0 {
		cfg.ActiveWarehouses = cfg.Warehouses
	}
	if cfg.Partitions == 0 {
		cfg.Partitions = 1
	}
	if cfg.Wait < 0 {
		return fmt.Errorf("tpcc run: --wait must be >= 0, got %v", cfg.Wait)
	}
	if cfg.Duration <= 0 {
		return fmt.Errorf("tpcc run: --duration must be > 0, got %v", cfg.Duration)
	}
	if cfg.DisplayEvery <= 0 {
		cfg.DisplayEvery = time.Second
	}
	if err := cfg.Retry.validate(); err != nil {
		return fmt.Errorf("tpcc run: %w", err)
	}
	cfg.Retry = cfg.Retry.WithDefaults()
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(cfg.Now().UnixNano())
	}
	if _, err := ParseProfile(string(cfg.Profile)); err != nil {
		return fmt.Errorf("tpcc run: --profile: %w", err)
	}
	if cfg.SavepointRetryLimit < 0 {
		return fmt.Errorf("tpcc run: --savepoint-retry-limit must be >= 0, got %d", cfg.SavepointRetryLimit)
	}
	if cfg.MaxRate < 0 {
		return fmt.Errorf("tpcc run: --max-rate must be >= 0, got %v", cfg.MaxRate)
	}
	cfg.limit = newOpLimiter(cfg.MaxRate, cfg.MaxOps)
	if cfg.Mix != nil {
		if _, err := NewDeckMix(*cfg.Mix); err != nil {
			return fmt.Errorf("tpcc run: --mix: %w", err)
		}
	}
	if cfg.Procs < ProcsFollowDemand || cfg.Procs > MaxProcs {
		return fmt.Errorf("tpcc run: --procs must be 0 (follow the demand) or 1..%d, got %d", MaxProcs, cfg.Procs)
	}
	return nil
}

// ProcsFollowDemand is RunConfig.Procs for a GOMAXPROCS that follows the
// client's CPU use; MaxProcs bounds a fixed one.
const (
	ProcsFollowDemand = -1
	MaxProcs          = 1024
)

// startProcs applies cfg.Procs for the run. The returned func restores
// GOMAXPROCS and says what the run used (nil when the run left
// GOMAXPROCS alone); it may be called more than once.
func (cfg *RunConfig) startProcs(ctx context.Context) func() *result.ClientProcs {
	var stop func() *result.ClientProcs
	switch {
	case cfg.Procs == ProcsFollowDemand:
		g := &procs.Governor{}
		g.Start(ctx)
		stop = func() *result.ClientProcs {
			st := g.Stop()
			return &result.ClientProcs{FollowedDemand: true, Peak: st.Peak, Max: g.Max, Changes: st.Changes}
		}
	case cfg.Procs > 0:
		old := runtime.GOMAXPROCS(cfg.Procs)
		stop = func() *result.ClientProcs {
			runtime.GOMAXPROCS(old)
			return &result.ClientProcs{Peak: cfg.Procs, Max: cfg.Procs}
		}
	default:
		return func() *result.ClientProcs { return nil }
	}
	var once sync.Once
	var used *result.ClientProcs
	return func() *result.ClientProcs {
		once.Do(func() { used = stop() })
		return used
	}
}

// procsLine is the report's line for the Ps a run used.
func procsLine(p *result.ClientProcs) string {
	if p.FollowedDemand {
		return fmt.Sprintf("Client Ps (GOMAXPROCS) followed the demand: at most %d of %d, %d changes", p.Peak, p.Max, p.Changes)
	}
	return fmt.Sprintf("Client Ps (GOMAXPROCS): %d", p.Peak)
}

// WaitTerminalsPerConn is how many paced terminals share one connection
// by default: one connection per 4 warehouses, an eighth of CockroachDB
// workload's 2 per warehouse. A terminal spends over 99% of its time
// keying and thinking (clause 5.2.5: ~21 s per transaction against
// milliseconds of execution), so 40 terminals offer a connection about 2
// transactions per second: 20% busy at 100 ms per transaction, 50% at
// 250 ms, and a pool of tens of such connections per URL queues almost
// never. Memory decided it: BenchmarkWaitMemory measured ~140 kB per
// warmed connection (pgx buffers, prepared statements, its executor
// goroutine) against ~0.1-0.6 kB per terminal, so at workload's ratio the
// 40,000 connections of a 20,000-warehouse host would need ~5.5 GB, and at
// this one its 5,000 need ~0.7 GB. Executors take due terminals from the
// scheduler and a terminal waiting for a connection counts that wait in
// its response time (clause 5.3), so too few connections show in the
// latencies rather than hiding; --conns overrides.
const WaitTerminalsPerConn = 40

// sizing returns the executors (terminals or no-wait workers) and the
// connections of a run with terminals spec terminals on this host.
func (cfg *RunConfig) sizing(terminals int, parts Partitions, prof LoadProfile) (workers, conns int, err error) {
	noWait := cfg.Wait == 0
	if err := runspec.CheckWorkers(cfg.Wait, cfg.Workers, cfg.Conns, terminals); err != nil {
		return 0, 0, err
	}
	workers = terminals
	if noWait && cfg.Workers > 0 {
		// workload's --workers counts every partition's workers; this
		// host creates the share its version gives its affinity.
		workers = WorkersForHost(cfg.URLPerAffinity, cfg.Workers, parts, cfg.Affinity)
	}
	conns = cfg.Conns
	if conns == 0 {
		conns = prof.Conns(cfg, workers)
	}
	return workers, conns, nil
}

// perURLConns spreads conns over n URLs, rounding up: every URL gets at
// least one.
//
// fidelity:v20.1/D19
func perURLConns(conns, n int) int { return max(1, (conns+n-1)/n) }
