package tpcc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/tpcc/histogram"
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
	Mix                  *Mix              // --mix (nil: the spec's deck)
	MaxRate              float64           // --max-rate: transactions/s over this host (0: unlimited)
	MaxOps               uint64            // --max-ops: end the run after this many (0: unlimited)
	QueryExecMode        pgx.QueryExecMode // --method (0: prepare)
	Scatter              bool              // --scatter: ALTER TABLE ... SCATTER before the run (Cockroach.ScatterStatements)
	DataSeed             uint64            // --seed: the data generator's seed (0: 1, workload's); gives C-Load without benchrig_meta, must match it with
	Imported             bool              // --imported: the data was IMPORTed from workload:// sources (C_LAST's C-Load 0 without benchrig_meta)
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

// RunResult is what a run measured, after the ramp.
type RunResult struct {
	Elapsed    time.Duration
	TpmC       float64
	Efficiency float64 // % of 12.86 × this host's active warehouses
	// WorkloadEfficiency is workload's per-host efc: % of 12.86 × the
	// active warehouses of the whole run (all hosts).
	WorkloadEfficiency float64
	Profile            Profile // the load profile that ran
	Connections        int     // connections this host opened
	AllActive          int     // active warehouses of the whole run (WorkloadEfficiency's)
	CLoad              Constants
	Counts             [numTxnTypes]int64
	Errors             [numTxnTypes]int64
	Retries            [numTxnTypes]int64 // retried 40001/40P01 aborts
	GaveUp             [numTxnTypes]int64 // transactions whose retry budget ran out (also in Errors)
	// RetryWork and RetryBackoff are what retries cost: the failed
	// attempts' time and the backoff sleeps, summed over transactions
	// (both are inside the retried transactions' latencies).
	RetryWork, RetryBackoff [numTxnTypes]time.Duration
	Isolation               pgx.TxIsoLevel
	StartDelay              time.Duration // how late the run started after StartAt (0 without it)
	// StartAt is the instant the run started at (--start-at, or the
	// start file's); ReadyAt when it became ready (the start barrier's
	// ready file; zero without it).
	StartAt, ReadyAt time.Time
	// Procs is the driver's GOMAXPROCS over the run (nil: left alone).
	Procs  *result.ClientProcs
	Audit  []AuditResult
	Result *histogram.Result // cumulative histograms
}

// AuditError is returned when an audit check or the efficiency fails.
type AuditError struct {
	Failed []AuditResult
}

func (e *AuditError) Error() string {
	s := "tpcc run: audit failed:"
	for _, f := range e.Failed {
		s += " " + f.ID + " (" + f.Detail + ")"
	}
	return s
}

// plan is the host's share of the run: its terminals' homes and the
// connection pool serving each.
type plan struct {
	homes []Home
	pool  []uint16
}

// planTerminals places 10 terminals on every active warehouse of the
// partitions in affinity (clause 4.2.2 / CockroachDB's 10 workers per
// warehouse), with terminal k of a warehouse using district k for
// Stock-Level (clause 2.8.1.1).
//
// URLs: with one affinity value (or none) every URL serves this host's
// warehouses, spread by w_id. With several, URL j serves partition
// affinity[j % len(affinity)] — list URLs in the order of the affinity
// list, as older CockroachDB workloads assumed — and a partition without
// a URL of its own uses all of them.
//
// fidelity:v20.1/D20 fidelity:v20.1/D22
func planTerminals(p Partitions, affinity []int, nURLs int, urlPerAffinity bool) (plan, error) {
	if len(affinity) == 0 {
		for i := range p.Count {
			affinity = append(affinity, i)
		}
	}
	urlsOf := urlPartitions(urlPerAffinity, p.Count, affinity, nURLs)
	var pl plan
	for _, part := range affinity {
		if part < 0 || part >= p.Count {
			return plan{}, fmt.Errorf("partition affinity %d outside 0..%d", part, p.Count-1)
		}
		lo, hi := p.ActiveRange(part)
		for w := lo; w <= hi; w++ {
			urls := urlsOf[part]
			var u uint16
			if len(urls) > 0 {
				u = urls[w%len(urls)]
			} else {
				u = uint16(w % nURLs)
			}
			for d := 1; d <= 10; d++ {
				pl.homes = append(pl.homes, Home{W: int32(w), D: int32(d)})
				pl.pool = append(pl.pool, u)
			}
		}
	}
	if len(pl.homes) == 0 {
		return plan{}, errors.New("no active warehouse in this host's partitions")
	}
	return pl, nil
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
	cfg.Retry = cfg.Retry.normalize()
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

// Run drives the workload: it connects, waits for StartAt, ramps up,
// measures for Duration, prints the report and returns the result. An
// audit failure (over enough transactions to be significant) returns the
// result and an *AuditError.
//
// fidelity:v20.1/D26
func Run(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	parts, err := NewPartitions(cfg.Warehouses, cfg.ActiveWarehouses, cfg.Partitions)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}
	pl, err := planTerminals(parts, cfg.Affinity, len(cfg.URLs), cfg.URLPerAffinity)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}
	loaded := cfg.Warehouses
	if cfg.benchOnlyLoaded > 0 {
		loaded = cfg.benchOnlyLoaded
		first, _ := parts.ActiveRange(0)
		for i := range pl.homes {
			pl.homes[i].W = int32(first + (int(pl.homes[i].W)-first)%loaded)
		}
	}
	activeHere := len(pl.homes) / 10
	noWait := cfg.Wait == 0
	prof, err := cfg.chooseProfile(ctx, parts)
	if err != nil {
		return nil, err
	}
	workers, conns, err := cfg.sizing(len(pl.homes), parts, prof)
	if err != nil {
		return nil, err
	}
	perURL := perURLConns(conns, len(cfg.URLs))
	out := bufio.NewWriter(cfg.Out)
	defer out.Flush()

	procsDone := cfg.startProcs(ctx)
	defer procsDone()
	fmt.Fprintf(out, "Initializing %d connections...\n", perURL*len(cfg.URLs))
	out.Flush()
	pools, err := OpenPoolsPinging(ctx, cfg.URLs, perURL, cfg.QueryExecMode, cfg.PingIdleConns)
	if err != nil {
		return nil, err
	}
	defer closePools(pools)
	dialect, meta, stored, err := probe(ctx, pools[0], cfg.DataSeed)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	if dialect == Cockroach && (cfg.Partitions > 1 || cfg.Scatter) && cfg.Cockroach == nil {
		return nil, errors.New("tpcc run: partitioning or scattering CockroachDB needs its fixtures (the command layer gives them)")
	}
	if dialect == Cockroach && cfg.Cockroach != nil {
		if err := cfg.Cockroach.Detect(ctx, pools[0]); err != nil {
			return nil, fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
		}
	}
	if dialect == Cockroach && cfg.Partitions > 1 {
		fmt.Fprintf(out, "Partitioning the tables %d ways (%s) if they are not yet\n", cfg.Partitions, cfg.Cockroach.Strategy())
		out.Flush()
		if err := cfg.Cockroach.Partition(ctx, pools[0], parts); err != nil {
			return nil, fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
		}
		meta.Partitions = cfg.Partitions
	}
	if dialect == Cockroach && cfg.Scatter {
		for _, s := range cfg.Cockroach.ScatterStatements() {
			if _, err := pools[0].Exec(ctx, s); err != nil {
				return nil, fmt.Errorf("tpcc run: --scatter: %s: %w", s, err)
			}
		}
	}
	// A --warehouses other than the loaded count makes transactions miss
	// rows (CockroachDB's workload then fails with "no rows in result
	// set", cockroach#73860); say so before starting.
	if meta.Warehouses != loaded {
		return nil, fmt.Errorf("tpcc run: --warehouses %d, but the database holds %d", loaded, meta.Warehouses)
	}
	if meta.Partitions > 1 && cfg.Partitions != meta.Partitions {
		return nil, fmt.Errorf("tpcc run: --partitions %d, but the database is partitioned %d ways", cfg.Partitions, meta.Partitions)
	}
	load := dataConstants(meta, stored, cfg.Imported)
	iso := cfg.Isolation
	if iso == "" {
		iso = pgx.RepeatableRead // PostgreSQL: snapshot + FOR UPDATE; conflicts surface as 40001 and are retried
		if dialect == Cockroach {
			iso = pgx.Serializable
		}
	}
	rw := pgx.TxOptions{IsoLevel: iso}
	ro := pgx.TxOptions{IsoLevel: iso, AccessMode: pgx.ReadOnly}
	seedRand := NewRand(cfg.Seed, 0)
	runC := prof.RunConstants(seedRand, meta)
	fmt.Fprintf(out, "Profile %s, dialect %s, isolation %s, C-Load %s, C-Run %s\n", prof.Name(), dialect, iso, load, runC)
	out.Flush()
	if err := prof.Warm(ctx, pools, perURL, dialect); err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}

	var cnt atomic.Pointer[counters]
	cnt.Store(newCounters(cfg.Warehouses))
	maxLatency := cfg.HistogramsMaxLatency
	if maxLatency <= 0 {
		maxLatency = histogram.MaxLatency
	}
	rec := histogram.NewRecorderMax(cfg.Now(), maxLatency, histogram.TPCCNames()...)
	var ops [numTxnTypes]*histogram.Op
	for t := range numTxnTypes {
		ops[t] = rec.Op(t.String(), cfg.Now())
	}

	// newExec makes an executor of the profile with its own random
	// stream, which the run also draws its cards and think times from.
	newExec := func(stream uint64) (Executor, *Rand) {
		r := NewRand(cfg.Seed, stream)
		return prof.NewExecutor(Session{Rand: r, Constants: runC, Warehouses: loaded, Dialect: dialect,
			Retry: cfg.Retry, ReadWrite: rw, ReadOnly: ro, Tally: Tally{&cnt}}), r
	}
	var startDelay time.Duration
	if cfg.benchOnlyWarm {
		if err := warmConnections(ctx, pools, perURL, pl.homes, newExec); err != nil {
			return nil, fmt.Errorf("tpcc run: warm connections: %w", err)
		}
	}
	// The warm-up's garbage (on a 100k host, what the server described
	// to each of 200,070 connections as they were prepared) is collected
	// and given back to the system before the terminals start, so that
	// the run holds its live set only and no collection of it falls in
	// the measured window (BenchmarkHost200k).
	debug.FreeOSMemory()
	var readyAt time.Time
	if cfg.StartFile != "" {
		if readyAt, cfg.StartAt, err = awaitStart(ctx, &cfg, out); err != nil {
			return nil, err
		}
	}
	if !cfg.StartAt.IsZero() {
		if d := cfg.StartAt.Sub(cfg.Now()); d > 0 {
			fmt.Fprintf(out, "Waiting %s for --start-at %s\n", d.Round(time.Millisecond), cfg.StartAt.Format(time.RFC3339Nano))
			out.Flush()
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		startDelay = cfg.Now().Sub(cfg.StartAt)
		fmt.Fprintf(out, "Started %s after --start-at\n", startDelay.Round(time.Microsecond))
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	start := cfg.Now()
	rec.Reset(start)
	var firstErr sync.Once
	var errs errorLog
	// swap keeps a transaction's count and its latency on the same side
	// of the ramp's end: the display loop swaps counters and resets the
	// histograms under the write lock, executors account under the read
	// lock (without it a transaction could count in the old counters and
	// record in the new histograms).
	var swap sync.RWMutex
	account := func(t TxnType, latency time.Duration, retries int, err error) {
		swap.RLock()
		defer swap.RUnlock()
		c := cnt.Load()
		if retries > 0 {
			c.retries[t].Add(int64(retries))
		}
		if runCtx.Err() != nil {
			return // interrupted by the end of the run: not a measurement
		}
		if err != nil && !errors.Is(err, ErrNewOrderRollback) {
			c.errors[t].Add(1)
			var ex *RetriesExhaustedError
			if errors.As(err, &ex) {
				c.gaveUp[t].Add(1)
			}
			errs.note(err)
			if !cfg.TolerateErrors {
				firstErr.Do(func() { cancel(err) })
			}
			return
		}
		c.done[t].Add(1)
		ops[t].Record(latency)
	}

	g, gctx := errgroup.WithContext(runCtx)
	stop := make(chan struct{})
	ex := &executors{cfg: &cfg, pl: pl, pools: pools, g: g, ctx: gctx, newExec: newExec, account: account, prof: prof}
	if noWait {
		fmt.Fprintf(out, "Initializing %d workers (no wait) for %d warehouses...\n", workers, activeHere)
		ex.startNoWait(workers)
	} else {
		fmt.Fprintf(out, "Initializing %d terminals (wait %v) for %d warehouses...\n", len(pl.homes), cfg.Wait, activeHere)
		ex.startTerminals(start, seedRand, perURL, stop)
	}
	out.Flush()
	if cfg.benchOnlyStarted != nil {
		cfg.benchOnlyStarted()
	}

	// The display loop: progress every DisplayEvery; histogram ticks only
	// after the ramp, whose end resets everything (CockroachDB's rule).
	rep := newReporter(out)
	var tb result.TickBuilder
	measureStart := start
	ramping := cfg.Ramp > 0
	rampEnd := start.Add(cfg.Ramp)
	end := rampEnd.Add(cfg.Duration)
	var enc *histogram.Encoder
	if cfg.Histograms != nil {
		enc = histogram.NewEncoder(cfg.Histograms)
	}
	ticker := time.NewTicker(cfg.DisplayEvery)
	var loopErr error
loop:
	for {
		var now time.Time
		select {
		case <-runCtx.Done():
			break loop
		case <-cfg.limit.exhausted(): // --max-ops
			break loop
		case <-ticker.C:
			now = cfg.Now()
		}
		if ramping && !now.Before(rampEnd) {
			ramping = false
			measureStart = now
			swap.Lock()
			rec.Reset(now)
			cnt.Store(newCounters(cfg.Warehouses))
			tb.Reset()
			swap.Unlock()
			fmt.Fprintf(out, "Ramp-up done after %s; measuring for %s\n", now.Sub(start).Round(time.Millisecond), cfg.Duration)
			continue
		}
		errs.print(out)
		ivs := rec.Tick(now)
		phase := result.PhaseRun
		if ramping {
			phase = result.PhaseRamp
		}
		ts := tb.Build(now, now.Sub(measureStart), phase, ivs, loadTickCounts(cnt.Load()))
		ts.Terminals = ex.joined.Load()
		rep.progress(ts)
		if cfg.Ticks != nil {
			if err := cfg.Ticks.Write(ts); err != nil {
				loopErr = fmt.Errorf("tpcc run: --ticks: %w", err)
				cancel(loopErr)
				break loop
			}
		}
		if !ramping && enc != nil {
			for _, iv := range ivs {
				if err := enc.Encode(iv.Tick()); err != nil {
					loopErr = fmt.Errorf("tpcc run: --histograms: %w", err)
					cancel(loopErr)
					break loop
				}
			}
			// A buffered file is flushed every tick, so a run that is
			// killed leaves every completed tick on disk.
			if err := flush(cfg.Histograms); err != nil {
				loopErr = fmt.Errorf("tpcc run: --histograms: %w", err)
				cancel(loopErr)
				break loop
			}
		}
		out.Flush()
		if !now.Before(end) {
			break
		}
	}
	ticker.Stop()
	close(stop)
	cancel(nil)
	_ = g.Wait()
	procsUsed := procsDone()
	now := cfg.Now()
	if cause := context.Cause(runCtx); cause != nil && !errors.Is(cause, context.Canceled) && loopErr == nil {
		loopErr = fmt.Errorf("tpcc run: stopped by an error (use --tolerate-errors to continue past errors): %w", cause)
	}
	if loopErr == nil && ctx.Err() != nil {
		loopErr = ctx.Err()
	}
	if ramping {
		// Interrupted or failed during the ramp: nothing was measured.
		if loopErr == nil {
			loopErr = errors.New("tpcc run: ended during the ramp-up")
		}
		return nil, loopErr
	}
	// The final delta line of every name at shutdown.
	final := rec.Tick(now)
	if enc != nil {
		for _, iv := range final {
			if err := enc.Encode(iv.Tick()); err != nil && loopErr == nil {
				loopErr = fmt.Errorf("tpcc run: --histograms: %w", err)
			}
		}
		if err := flush(cfg.Histograms); err != nil && loopErr == nil {
			loopErr = fmt.Errorf("tpcc run: --histograms: %w", err)
		}
	}
	c := cnt.Load()
	if cfg.Ticks != nil {
		ts := tb.Build(now, now.Sub(measureStart), result.PhaseFinal, final, loadTickCounts(c))
		ts.Terminals = ex.joined.Load()
		if err := cfg.Ticks.Write(ts); err != nil && loopErr == nil {
			loopErr = fmt.Errorf("tpcc run: --ticks: %w", err)
		}
	}
	res := newRunResult(final, c, now.Sub(measureStart), activeHere)
	res.Profile, res.Connections, res.CLoad = prof.Name(), perURL*len(cfg.URLs), load
	res.AllActive = cfg.ActiveWarehouses
	res.WorkloadEfficiency = 100 * res.TpmC / (histogram.SpecWarehouseFactor * float64(cfg.ActiveWarehouses))
	res.StartDelay = startDelay
	res.ReadyAt, res.StartAt = readyAt, cfg.StartAt
	res.Isolation = iso
	res.Audit = audit(c, res, loaded, cfg.Wait)
	res.Procs = procsUsed
	if procsUsed != nil {
		fmt.Fprintln(out, procsLine(procsUsed))
	}
	rep.final(res)
	if loopErr != nil {
		return res, loopErr
	}
	var failed []AuditResult
	for _, a := range res.Audit {
		if a.Status == AuditFail {
			failed = append(failed, a)
		}
	}
	if len(failed) > 0 && !cfg.NoVerdict {
		return res, &AuditError{Failed: failed}
	}
	return res, nil
}

// errorLog keeps the latest transaction error for the display loop, which
// prints it (with how many occurred since) instead of letting executors
// write to the console concurrently.
type errorLog struct {
	mu    sync.Mutex
	last  error
	since int
}

func (l *errorLog) note(err error) {
	l.mu.Lock()
	l.last = err
	l.since++
	l.mu.Unlock()
}

func (l *errorLog) print(w io.Writer) {
	l.mu.Lock()
	last, n := l.last, l.since
	l.last, l.since = nil, 0
	l.mu.Unlock()
	if last != nil {
		fmt.Fprintf(w, "%d error(s) since the last line, latest: %v\n", n, last)
	}
}

// newRunResult gathers the measurement interval's histograms and counters.
// Efficiency is against 12.86 tpmC per active warehouse of this host.
func newRunResult(final []histogram.Interval, c *counters, elapsed time.Duration, activeHere int) *RunResult {
	res := &RunResult{Elapsed: elapsed, Result: &histogram.Result{
		Warehouses: activeHere, Cumulative: map[string]*hdrHistogram{}, Elapsed: elapsed}}
	for _, iv := range final {
		res.Result.Cumulative[iv.Name] = iv.Cumulative
	}
	for t := range numTxnTypes {
		res.Counts[t] = c.done[t].Load()
		res.Errors[t] = c.errors[t].Load()
		res.Retries[t] = c.retries[t].Load()
		res.GaveUp[t] = c.gaveUp[t].Load()
		res.RetryWork[t] = time.Duration(c.retryWork[t].Load())
		res.RetryBackoff[t] = time.Duration(c.retryBackoff[t].Load())
	}
	if m := elapsed.Minutes(); m > 0 {
		res.TpmC = float64(res.Counts[NewOrderTxn]) / m
	}
	res.Efficiency = 100 * res.TpmC / (histogram.SpecWarehouseFactor * float64(activeHere))
	return res
}

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
		sizeConnConfig(pc.ConnConfig)
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

// sizeConnConfig sizes a connection for TPC-C's few statements and small
// rows. pgx's defaults are for an application with many: two 512-entry
// caches (prepared statements, and descriptions for another exec mode),
// each allocated up front, were ~24 kB of every connection's ~110 kB
// measured by BenchmarkWaitMemory. The description cache is unused in
// QueryExecModeCacheStatement. Capacities a URL sets
// (statement_cache_capacity, description_cache_capacity) are kept unless
// they equal pgx's default, which ParseConfig cannot tell apart.
func sizeConnConfig(c *pgx.ConnConfig) {
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

// flush flushes w if it buffers (a *bufio.Writer over the file).
func flush(w io.Writer) error {
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// noWaitHome is the index into plan.homes of no-wait worker k among nW
// warehouses: round-robin over warehouses first, then districts, so that
// --workers=W (tpccbench's rebalancing load) touches every warehouse.
func noWaitHome(k, nW int) int { return (k%nW)*10 + (k/nW)%10 }

// probe detects the dialect and reads the load's metadata (C-Load), from
// benchrig_meta or, without it, from the data and the data seed.
func probe(ctx context.Context, pool *pgxpool.Pool, dataSeed uint64) (Dialect, Meta, bool, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, Meta{}, false, err
	}
	defer conn.Release()
	d, err := DetectDialect(ctx, conn.Conn())
	if err != nil {
		return 0, Meta{}, false, err
	}
	m, stored, err := DatabaseMeta(ctx, conn, dataSeed)
	if err != nil {
		return 0, Meta{}, false, err
	}
	return d, m, stored, nil
}

// dataConstants are the constants the data was generated with, as the
// console and the result name them (C-Load): benchrig_meta's when stored;
// without it the seed's (workload init), except C_LAST's C for data
// IMPORTed from workload:// sources, which the nodes generate with C = 0
// (DataCLoad), as the report says. The run's own C-Run still follows
// meta (the seed's, as workload's run draws it).
//
// fidelity:v20.1/D29
func dataConstants(m Meta, stored, imported bool) Constants {
	c := m.Load
	if !stored && imported {
		c.CLast = DataCLoad(LoaderNodes, m.Seed)
	}
	return c
}
