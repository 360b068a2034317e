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
	pools, err := OpenPools(ctx, cfg.URLs, perURL, cfg.QueryExecMode)
	if err != nil {
		return nil, err
	}
	defer closePools(pools)
	dialect, meta, err := probe(ctx, pools[0], cfg.DataSeed)
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
	load := meta.Load
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

// flush flushes w if it buffers (a *bufio.Writer over the file).
func flush(w io.Writer) error {
	if f, ok := w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// probe detects the dialect and reads the load's metadata (C-Load), from
// benchrig_meta or, without it, from the data and the data seed.
func probe(ctx context.Context, pool *pgxpool.Pool, dataSeed uint64) (Dialect, Meta, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return 0, Meta{}, err
	}
	defer conn.Release()
	d, err := DetectDialect(ctx, conn.Conn())
	if err != nil {
		return 0, Meta{}, err
	}
	m, _, err := DatabaseMeta(ctx, conn, dataSeed)
	if err != nil {
		return 0, Meta{}, err
	}
	return d, m, nil
}
