package tpcc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// Run drives the workload: it connects, waits for StartAt, ramps up,
// measures for Duration, prints the report and returns the result. An
// audit failure (over enough transactions to be significant) returns the
// result and an *AuditError. It only wires together the phases of a
// runState: its executors (newExecutor), their accounting (account) and
// the display loop (displayLoop).
//
// fidelity:v20.1/D26
func Run(ctx context.Context, cfg RunConfig) (*RunResult, error) {
	r, err := newRun(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	r.out = bufio.NewWriter(cfg.Out)
	defer r.out.Flush()
	procsDone := cfg.startProcs(ctx)
	defer procsDone()
	fmt.Fprintf(r.out, "Initializing %d connections...\n", r.perURL*len(cfg.URLs))
	r.out.Flush()
	if r.pools, err = OpenPoolsPinging(ctx, cfg.URLs, r.perURL, cfg.QueryExecMode, cfg.PingIdleConns); err != nil {
		return nil, err
	}
	defer closePools(r.pools)
	if err := r.setUpDatabase(ctx); err != nil {
		return nil, err
	}
	if cfg.benchOnlyWarm {
		if err := warmConnections(ctx, r.pools, r.perURL, r.pl.homes, r.newExecutor); err != nil {
			return nil, fmt.Errorf("tpcc run: warm connections: %w", err)
		}
	}
	// The warm-up's garbage (on a 100k host, what the server described
	// to each of 200,070 connections as they were prepared) is collected
	// and given back to the system before the terminals start, so that
	// the run holds its live set only and no collection of it falls in
	// the measured window (BenchmarkHost200k).
	debug.FreeOSMemory()
	if err := r.waitForStart(ctx); err != nil {
		return nil, err
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.ctx, r.cancel = runCtx, cancel
	start := cfg.Now()
	r.rec.Reset(start)
	g, gctx := errgroup.WithContext(runCtx)
	stop := make(chan struct{})
	ex := &executors{cfg: &cfg, pl: r.pl, pools: r.pools, g: g, ctx: gctx, newExec: r.newExecutor, account: r.account, prof: r.prof}
	if cfg.Wait == 0 {
		fmt.Fprintf(r.out, "Initializing %d workers (no wait) for %d warehouses...\n", r.workers, r.activeHere)
		ex.startNoWait(r.workers)
	} else {
		fmt.Fprintf(r.out, "Initializing %d terminals (wait %v) for %d warehouses...\n", len(r.pl.homes), cfg.Wait, r.activeHere)
		ex.startTerminals(start, r.seedRand, r.perURL, stop)
	}
	r.out.Flush()
	if cfg.benchOnlyStarted != nil {
		cfg.benchOnlyStarted()
	}

	d := r.displayLoop(start, ex)
	close(stop)
	cancel(nil)
	_ = g.Wait()
	procsUsed := procsDone()
	now := cfg.Now()
	loopErr := d.err
	if cause := context.Cause(runCtx); cause != nil && !errors.Is(cause, context.Canceled) && loopErr == nil {
		loopErr = fmt.Errorf("tpcc run: stopped by an error (use --tolerate-errors to continue past errors): %w", cause)
	}
	if loopErr == nil && ctx.Err() != nil {
		loopErr = ctx.Err()
	}
	if d.ramping {
		// Interrupted or failed during the ramp: nothing was measured.
		if loopErr == nil {
			loopErr = errors.New("tpcc run: ended during the ramp-up")
		}
		return nil, loopErr
	}
	res, err := r.finish(now, d, ex, procsUsed)
	if loopErr == nil {
		loopErr = err
	}
	r.rep.final(res)
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

// runState is one Run's state (not the scheduler's run loop): the host's
// plan and sizing, the database it found, and what the executors, their
// accounting and the display loop share (the counters, the histograms,
// the first error).
type runState struct {
	cfg                *RunConfig
	parts              Partitions
	pl                 plan
	loaded, activeHere int // warehouses in the database; active on this host
	prof               LoadProfile
	workers, perURL    int
	out                *bufio.Writer
	rep                *reporter
	pools              []*pgxpool.Pool

	// What setUpDatabase found and chose.
	dialect  Dialect
	meta     Meta
	load     Constants // the data's constants, as the console and the result name them (dataConstants)
	iso      pgx.TxIsoLevel
	rw, ro   pgx.TxOptions
	seedRand *Rand
	runC     Constants // C-Run

	// readyAt and startDelay are waitForStart's: when the start file
	// named the start, and how late the run started after it.
	readyAt    time.Time
	startDelay time.Duration

	// The executors' accounting, which the display loop reads and swaps.
	cnt atomic.Pointer[counters]
	rec *histogram.Recorder
	ops [numTxnTypes]*histogram.Op
	// swap keeps a transaction's count and its latency on the same side
	// of the ramp's end: the display loop swaps counters and resets the
	// histograms under the write lock, executors account under the read
	// lock (without it a transaction could count in the old counters and
	// record in the new histograms).
	swap     sync.RWMutex
	errs     errorLog
	firstErr sync.Once
	ctx      context.Context // the run's: canceled at its end or first error
	cancel   context.CancelCauseFunc
}

// newRun applies cfg's defaults and plans this host's share: its
// terminals, the profile and the connections it sizes.
func newRun(ctx context.Context, cfg *RunConfig) (*runState, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	r := &runState{cfg: cfg}
	var err error
	if r.parts, err = NewPartitions(cfg.Warehouses, cfg.ActiveWarehouses, cfg.Partitions); err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}
	if r.pl, err = planTerminals(r.parts, cfg.Affinity, len(cfg.URLs), cfg.URLPerAffinity); err != nil {
		return nil, fmt.Errorf("tpcc run: %w", err)
	}
	r.loaded = cfg.Warehouses
	if cfg.benchOnlyLoaded > 0 {
		r.loaded = cfg.benchOnlyLoaded
		first, _ := r.parts.ActiveRange(0)
		for i := range r.pl.homes {
			r.pl.homes[i].W = int32(first + (int(r.pl.homes[i].W)-first)%r.loaded)
		}
	}
	r.activeHere = len(r.pl.homes) / 10
	if r.prof, err = cfg.chooseProfile(ctx, r.parts); err != nil {
		return nil, err
	}
	workers, conns, err := cfg.sizing(len(r.pl.homes), r.parts, r.prof)
	if err != nil {
		return nil, err
	}
	r.workers, r.perURL = workers, perURLConns(conns, len(cfg.URLs))
	return r, nil
}

// setUpDatabase checks the database the pools reach against the run (dialect,
// metadata, CockroachDB's partitioning and scattering), chooses the
// isolation level and C-Run, warms the profile's connections and makes
// the accounting's counters and histograms.
func (r *runState) setUpDatabase(ctx context.Context) error {
	cfg, out := r.cfg, r.out
	var err error
	var stored bool
	r.dialect, r.meta, stored, err = probe(ctx, r.pools[0], cfg.DataSeed)
	if err != nil {
		return fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	r.load = dataConstants(r.meta, stored, cfg.Imported)
	dialect := r.dialect
	if dialect == Cockroach && (cfg.Partitions > 1 || cfg.Scatter) && cfg.Cockroach == nil {
		return errors.New("tpcc run: partitioning or scattering CockroachDB needs its fixtures (the command layer gives them)")
	}
	if dialect == Cockroach && cfg.Cockroach != nil {
		if err := cfg.Cockroach.Detect(ctx, r.pools[0]); err != nil {
			return fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
		}
	}
	if dialect == Cockroach && cfg.Partitions > 1 {
		fmt.Fprintf(out, "Partitioning the tables %d ways (%s) if they are not yet\n", cfg.Partitions, cfg.Cockroach.Strategy())
		out.Flush()
		if err := cfg.Cockroach.Partition(ctx, r.pools[0], r.parts); err != nil {
			return fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
		}
		r.meta.Partitions = cfg.Partitions
	}
	if dialect == Cockroach && cfg.Scatter {
		for _, s := range cfg.Cockroach.ScatterStatements() {
			if _, err := r.pools[0].Exec(ctx, s); err != nil {
				return fmt.Errorf("tpcc run: --scatter: %s: %w", s, err)
			}
		}
	}
	// A --warehouses other than the loaded count makes transactions miss
	// rows (CockroachDB's workload then fails with "no rows in result
	// set", cockroach#73860); say so before starting.
	if r.meta.Warehouses != r.loaded {
		return fmt.Errorf("tpcc run: --warehouses %d, but the database holds %d", r.loaded, r.meta.Warehouses)
	}
	if r.meta.Partitions > 1 && cfg.Partitions != r.meta.Partitions {
		return fmt.Errorf("tpcc run: --partitions %d, but the database is partitioned %d ways", cfg.Partitions, r.meta.Partitions)
	}
	r.iso = cfg.Isolation
	if r.iso == "" {
		r.iso = pgx.RepeatableRead // PostgreSQL: snapshot + FOR UPDATE; conflicts surface as 40001 and are retried
		if dialect == Cockroach {
			r.iso = pgx.Serializable
		}
	}
	r.rw = pgx.TxOptions{IsoLevel: r.iso}
	r.ro = pgx.TxOptions{IsoLevel: r.iso, AccessMode: pgx.ReadOnly}
	r.seedRand = NewRand(cfg.Seed, 0)
	r.runC = r.prof.RunConstants(r.seedRand, r.meta)
	fmt.Fprintf(out, "Profile %s, dialect %s, isolation %s, C-Load %s, C-Run %s\n", r.prof.Name(), dialect, r.iso, r.load, r.runC)
	out.Flush()
	if err := r.prof.Warm(ctx, r.pools, r.perURL, dialect); err != nil {
		return fmt.Errorf("tpcc run: %w", err)
	}

	r.cnt.Store(newCounters(cfg.Warehouses))
	maxLatency := cfg.HistogramsMaxLatency
	if maxLatency <= 0 {
		maxLatency = histogram.MaxLatency
	}
	r.rec = histogram.NewRecorderMax(cfg.Now(), maxLatency, histogram.TPCCNames()...)
	for t := range numTxnTypes {
		r.ops[t] = r.rec.Op(t.String(), cfg.Now())
	}
	return nil
}

// waitForStart waits for the start file's time or --start-at, if given.
func (r *runState) waitForStart(ctx context.Context) error {
	cfg, out := r.cfg, r.out
	if cfg.StartFile != "" {
		var err error
		if r.readyAt, cfg.StartAt, err = awaitStart(ctx, cfg, out); err != nil {
			return err
		}
	}
	if cfg.StartAt.IsZero() {
		return nil
	}
	if d := cfg.StartAt.Sub(cfg.Now()); d > 0 {
		fmt.Fprintf(out, "Waiting %s for --start-at %s\n", d.Round(time.Millisecond), cfg.StartAt.Format(time.RFC3339Nano))
		out.Flush()
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.startDelay = cfg.Now().Sub(cfg.StartAt)
	fmt.Fprintf(out, "Started %s after --start-at\n", r.startDelay.Round(time.Microsecond))
	return nil
}

// newExecutor makes an executor of the profile with its own random stream,
// which the run also draws its cards and think times from.
func (r *runState) newExecutor(stream uint64) (Executor, *Rand) {
	rng := NewRand(r.cfg.Seed, stream)
	return r.prof.NewExecutor(Session{Rand: rng, Constants: r.runC, Warehouses: r.loaded, Dialect: r.dialect,
		Retry: r.cfg.Retry, ReadWrite: r.rw, ReadOnly: r.ro, Tally: Tally{&r.cnt}}), rng
}

// account records one transaction an executor ran: its retries, and
// its latency or its error. The first error ends the run unless
// --tolerate-errors; a transaction the run's end interrupted is no
// measurement.
func (r *runState) account(t TxnType, latency time.Duration, retries int, err error) {
	r.swap.RLock()
	defer r.swap.RUnlock()
	c := r.cnt.Load()
	if retries > 0 {
		c.retries[t].Add(int64(retries))
	}
	if r.ctx.Err() != nil {
		return // interrupted by the end of the run: not a measurement
	}
	if err != nil && !errors.Is(err, ErrNewOrderRollback) {
		c.errors[t].Add(1)
		var ex *RetriesExhaustedError
		if errors.As(err, &ex) {
			c.gaveUp[t].Add(1)
		}
		r.errs.note(err)
		if !r.cfg.TolerateErrors {
			r.firstErr.Do(func() { r.cancel(err) })
		}
		return
	}
	c.done[t].Add(1)
	r.ops[t].Record(latency)
}

// displayEnd is where the display loop left the run.
type displayEnd struct {
	measureStart time.Time // the ramp's end (the start without a ramp)
	ramping      bool      // the loop ended during the ramp
	tb           result.TickBuilder
	enc          *histogram.Encoder // the --histograms file's, if any
	err          error              // a --ticks or --histograms write failed
}

// displayLoop is the display loop: progress every DisplayEvery; histogram
// ticks only after the ramp, whose end resets everything (CockroachDB's
// rule). It returns at the run's end, its first error or --max-ops.
func (r *runState) displayLoop(start time.Time, ex *executors) *displayEnd {
	cfg, out := r.cfg, r.out
	r.rep = newReporter(out)
	d := &displayEnd{measureStart: start, ramping: cfg.Ramp > 0}
	rampEnd := start.Add(cfg.Ramp)
	end := rampEnd.Add(cfg.Duration)
	if cfg.Histograms != nil {
		d.enc = histogram.NewEncoder(cfg.Histograms)
	}
	ticker := time.NewTicker(cfg.DisplayEvery)
	defer ticker.Stop()
	for {
		var now time.Time
		select {
		case <-r.ctx.Done():
			return d
		case <-cfg.limit.exhausted(): // --max-ops
			return d
		case <-ticker.C:
			now = cfg.Now()
		}
		if d.ramping && !now.Before(rampEnd) {
			d.ramping = false
			d.measureStart = now
			r.swap.Lock()
			r.rec.Reset(now)
			r.cnt.Store(newCounters(cfg.Warehouses))
			d.tb.Reset()
			r.swap.Unlock()
			fmt.Fprintf(out, "Ramp-up done after %s; measuring for %s\n", now.Sub(start).Round(time.Millisecond), cfg.Duration)
			continue
		}
		r.errs.print(out)
		ivs := r.rec.Tick(now)
		phase := result.PhaseRun
		if d.ramping {
			phase = result.PhaseRamp
		}
		ts := d.tb.Build(now, now.Sub(d.measureStart), phase, ivs, loadTickCounts(r.cnt.Load()))
		ts.Terminals = ex.joined.Load()
		r.rep.progress(ts)
		if cfg.Ticks != nil {
			if err := cfg.Ticks.Write(ts); err != nil {
				d.err = fmt.Errorf("tpcc run: --ticks: %w", err)
				r.cancel(d.err)
				return d
			}
		}
		if !d.ramping && d.enc != nil {
			for _, iv := range ivs {
				if err := d.enc.Encode(iv.Tick()); err != nil {
					d.err = fmt.Errorf("tpcc run: --histograms: %w", err)
					r.cancel(d.err)
					return d
				}
			}
			// A buffered file is flushed every tick, so a run that is
			// killed leaves every completed tick on disk.
			if err := flush(cfg.Histograms); err != nil {
				d.err = fmt.Errorf("tpcc run: --histograms: %w", err)
				r.cancel(d.err)
				return d
			}
		}
		out.Flush()
		if !now.Before(end) {
			return d
		}
	}
}

// finish writes the final delta line of every name at shutdown (to
// --histograms and --ticks) and makes the result with its audit; the
// error is the first write that failed.
func (r *runState) finish(now time.Time, d *displayEnd, ex *executors, procsUsed *result.ClientProcs) (*RunResult, error) {
	cfg := r.cfg
	var werr error
	final := r.rec.Tick(now)
	if d.enc != nil {
		for _, iv := range final {
			if err := d.enc.Encode(iv.Tick()); err != nil && werr == nil {
				werr = fmt.Errorf("tpcc run: --histograms: %w", err)
			}
		}
		if err := flush(cfg.Histograms); err != nil && werr == nil {
			werr = fmt.Errorf("tpcc run: --histograms: %w", err)
		}
	}
	c := r.cnt.Load()
	if cfg.Ticks != nil {
		ts := d.tb.Build(now, now.Sub(d.measureStart), result.PhaseFinal, final, loadTickCounts(c))
		ts.Terminals = ex.joined.Load()
		if err := cfg.Ticks.Write(ts); err != nil && werr == nil {
			werr = fmt.Errorf("tpcc run: --ticks: %w", err)
		}
	}
	res := newRunResult(final, c, now.Sub(d.measureStart), r.activeHere)
	res.Profile, res.Connections, res.CLoad = r.prof.Name(), r.perURL*len(cfg.URLs), r.load
	res.AllActive = cfg.ActiveWarehouses
	res.WorkloadEfficiency = 100 * res.TpmC / (histogram.SpecWarehouseFactor * float64(cfg.ActiveWarehouses))
	res.StartDelay = r.startDelay
	res.ReadyAt, res.StartAt = r.readyAt, cfg.StartAt
	res.Isolation = r.iso
	res.Audit = audit(c, res, r.loaded, cfg.Wait)
	res.Procs = procsUsed
	if procsUsed != nil {
		fmt.Fprintln(r.out, procsLine(procsUsed))
	}
	return res, werr
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

// flush flushes w if it buffers (a *bufio.Writer over the file).
func flush(w io.Writer) error {
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

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
