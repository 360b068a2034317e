package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// LoadOptions configure Load. Zero values mean "the whole database as
// initialised, one connection".
type LoadOptions struct {
	// Warehouses, when set, must equal the count stored by init (a
	// safety check against loading with another host's flags).
	Warehouses int
	// From, To: this loader fills warehouses From..To-1 (w_id is 0-based,
	// as in CockroachDB's workload); To 0 means W. Hosts loading one
	// database in parallel take disjoint ranges.
	From, To int
	// Concurrency is the number of connections, each loading one
	// warehouse at a time.
	Concurrency int
	// Seed, when non-nil, must equal the seed stored by init.
	Seed *uint64
	// Dialect selects how a warehouse is made atomic (see doc.go).
	Dialect Dialect
	// FKs adds workload's ten foreign keys (AddForeignKeys) once the
	// population is complete, like workload's --fks (on by default in the
	// CLI, as in workload).
	FKs bool
	// Progress receives a human progress line about every
	// ProgressInterval (default 1s); nil for none.
	Progress         io.Writer
	ProgressInterval time.Duration
	// ProgressTerminal redraws the progress line in place (Progress is
	// a terminal) instead of printing a line per interval (progress.go).
	ProgressTerminal bool
	// Now is the population timestamp (default time.Now()); fixed in
	// tests that compare two loads.
	Now time.Time

	// beforeCommit is called when a warehouse (itemsUnit: item) is about
	// to commit, and afterCommit when it has; tests use them to interrupt
	// a load at a known point. A cancellation that lands while COMMIT is
	// in flight leaves its outcome unknown to the client (the server may
	// have committed), so a test that wants an exact count holds the
	// other units in beforeCommit until it has cancelled.
	beforeCommit func(w int)
	afterCommit  func(w int)
}

// LoadStats summarise a Load.
type LoadStats struct {
	Loaded  int   // warehouses loaded by this call
	Skipped int   // warehouses of the range already loaded
	Items   bool  // whether this call loaded the item table
	Rows    int64 // rows copied
	Elapsed time.Duration
}

// rowsPerWarehouse is the expected population of one warehouse (clause
// 4.3.3.1; order_line's 300,000 is a mean), for ETA only.
const rowsPerWarehouse = 1 + 100000 + 10 + 30000 + 30000 + 30000 + 300000 + 9000

// Connector opens one connection; Load opens Concurrency of them.
type Connector func(ctx context.Context) (*pgx.Conn, error)

// URLConnector connects to the URLs round-robin, like CockroachDB's
// workload spreads connections over the URLs it is given.
func URLConnector(urls []string) Connector {
	var next atomic.Uint64
	return func(ctx context.Context) (*pgx.Conn, error) {
		u := urls[int(next.Add(1)-1)%len(urls)]
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("connect %s: %w", redact.URL(u), err)
		}
		return c, nil
	}
}

// Load populates the warehouses of the range that are not yet loaded, and
// the item table if it is not. It is safe to re-run after any failure and
// to run on several hosts with disjoint ranges at once.
func Load(ctx context.Context, connect Connector, o LoadOptions) (LoadStats, error) {
	start := time.Now()
	if o.Concurrency < 1 {
		o.Concurrency = 1
	}
	if o.Now.IsZero() {
		o.Now = start
	}
	first, err := connect(ctx)
	if err != nil {
		return LoadStats{}, fmt.Errorf("load: %w", err)
	}
	defer first.Close(context.Background())
	meta, err := ReadMeta(ctx, first)
	if err != nil {
		return LoadStats{}, fmt.Errorf("load: %w", err)
	}
	if o.Warehouses != 0 && o.Warehouses != meta.Warehouses {
		return LoadStats{}, fmt.Errorf("load: %w: --warehouses %d, but the database was initialised with %d", ErrMismatch, o.Warehouses, meta.Warehouses)
	}
	if o.Seed != nil && *o.Seed != meta.Seed {
		return LoadStats{}, fmt.Errorf("load: %w: --seed %d, but the database was initialised with seed %d (hosts must share one seed)", ErrMismatch, *o.Seed, meta.Seed)
	}
	from, to := o.From, o.To
	if to == 0 {
		to = meta.Warehouses
	}
	if from < 0 || to > meta.Warehouses || from >= to {
		return LoadStats{}, fmt.Errorf("load: warehouse range %d..%d not within 0..%d", from, to-1, meta.Warehouses-1)
	}
	done, err := loadedSet(ctx, first, from, to)
	if err != nil {
		return LoadStats{}, fmt.Errorf("load: %w", err)
	}
	var stats LoadStats
	jobs := make([]int, 0, to-from+1)
	if !done[itemsUnit] {
		jobs = append(jobs, itemsUnit)
	}
	for w := from; w < to; w++ {
		if done[w] {
			stats.Skipped++
		} else {
			jobs = append(jobs, w)
		}
	}
	first.Close(ctx)
	if len(jobs) == 0 {
		stats.Elapsed = time.Since(start)
		return stats, nil
	}

	now := loadTimestamp(o.Now)
	var rows atomic.Int64
	var warehousesDone atomic.Int64
	expected := int64(0)
	for _, w := range jobs {
		if w == itemsUnit {
			expected += NumItems
		} else {
			expected += rowsPerWarehouse
		}
	}
	nw := len(jobs)
	if jobs[0] == itemsUnit {
		nw--
	}
	stopProgress := startProgress(o.Progress, o.ProgressTerminal, o.ProgressInterval, start, &rows, &warehousesDone, expected, nw)

	// Connections are a fixed pool of Concurrency, handed to jobs through
	// a channel; errgroup's limit keeps at most that many jobs running.
	conns := make(chan *pgx.Conn, o.Concurrency)
	var opened []*pgx.Conn
	var openMu sync.Mutex
	defer func() {
		for _, c := range opened {
			c.Close(context.Background())
		}
	}()
	getConn := func(ctx context.Context) (*pgx.Conn, error) {
		select {
		case c := <-conns:
			return c, nil
		default:
		}
		c, err := connect(ctx)
		if err != nil {
			return nil, err
		}
		openMu.Lock()
		opened = append(opened, c)
		openMu.Unlock()
		return c, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Concurrency)
	results := make([]bool, len(jobs)) // true: loaded by us
	for i, w := range jobs {
		g.Go(func() error {
			conn, err := getConn(gctx)
			if err != nil {
				return fmt.Errorf("load: %w", err)
			}
			defer func() { conns <- conn }()
			var loaded bool
			var before func()
			if o.beforeCommit != nil {
				before = func() { o.beforeCommit(w) }
			}
			if w == itemsUnit {
				loaded, err = loadUnit(gctx, conn, o.Dialect, itemsUnit, []tableJob{{schemaTables()[0], newItemGen(meta.Seed)}}, &rows, before)
			} else {
				loaded, err = loadUnit(gctx, conn, o.Dialect, w, warehouseJobs(meta.Seed, w, meta.Load.CLast, now), &rows, before)
			}
			if err != nil {
				what := fmt.Sprintf("warehouse %d", w)
				if w == itemsUnit {
					what = "item"
				}
				// pgx reports a cancelled COPY as a closed connection;
				// keep the cancellation visible to errors.Is.
				if cerr := ctx.Err(); cerr != nil {
					return fmt.Errorf("load %s: %w: %w", what, cerr, err)
				}
				return fmt.Errorf("load %s: %w", what, err)
			}
			results[i] = loaded
			if w != itemsUnit {
				warehousesDone.Add(1)
			}
			if o.afterCommit != nil {
				o.afterCommit(w)
			}
			return nil
		})
	}
	err = g.Wait()
	stopProgress()
	for i, w := range jobs {
		switch {
		case !results[i]:
			if w != itemsUnit && err == nil {
				stats.Skipped++ // another loader got there first
			}
		case w == itemsUnit:
			stats.Items = true
		default:
			stats.Loaded++
		}
	}
	stats.Rows = rows.Load()
	if err != nil {
		stats.Elapsed = time.Since(start)
		return stats, err
	}
	if err := finishIfComplete(ctx, connect, meta.Warehouses, o); err != nil {
		return stats, fmt.Errorf("load: %w", err)
	}
	stats.Elapsed = time.Since(start)
	return stats, nil
}

// finishIfComplete does what follows a complete population, once: with
// hosts loading ranges in parallel, the loader that completes it. First
// the foreign keys (o.FKs), as workload's PostLoad; then, on PostgreSQL,
// fresh statistics: the run's plans (customer by last name, order by
// customer) depend on them and autovacuum may not have caught up.
func finishIfComplete(ctx context.Context, connect Connector, warehouses int, o LoadOptions) error {
	progress := o.Progress
	c, err := connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM `+loadedTable+` WHERE w_id BETWEEN $1 AND $2`, itemsUnit, warehouses-1).Scan(&n); err != nil {
		return fmt.Errorf("read %s: %w", loadedTable, err)
	}
	if n < warehouses+1 {
		if progress != nil {
			fmt.Fprintf(progress, "load: %d of %d warehouses loaded so far; the loader that completes the population adds the foreign keys and runs ANALYZE\n", max(n-1, 0), warehouses)
		}
		return nil
	}
	if o.FKs {
		if progress != nil {
			fmt.Fprintln(progress, "load: adding the 10 foreign keys (NOT VALID, then VALIDATE on PostgreSQL)")
		}
		if err := AddForeignKeys(ctx, c, o.Dialect); err != nil {
			return err
		}
	}
	if o.Dialect != Postgres {
		return nil
	}
	if progress != nil {
		fmt.Fprintln(progress, "load: ANALYZE (fresh planner statistics for the run)")
	}
	if _, err = c.Exec(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// itemsUnit is the item table's row in benchrig_loaded: warehouses are
// 0..W-1, so the item table is marked -1.
const itemsUnit = -1

// loadedSet returns which of warehouses from..to-1 (and itemsUnit, the
// item table) are marked loaded.
func loadedSet(ctx context.Context, conn *pgx.Conn, from, to int) (map[int]bool, error) {
	rows, err := conn.Query(ctx, `SELECT w_id FROM `+loadedTable+` WHERE w_id = $1 OR w_id BETWEEN $2 AND $3`, itemsUnit, from, to-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", loadedTable, err)
	}
	ws, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", loadedTable, err)
	}
	m := make(map[int]bool, len(ws))
	for _, w := range ws {
		m[int(w)] = true
	}
	return m, nil
}

// loadUnit loads one warehouse (or, w = itemsUnit, the item table) atomically and
// reports whether it did (false: someone else had already). beforeCommit,
// if not nil, is called before the unit's last write (LoadOptions).
//
// PostgreSQL: one transaction that first inserts the marker row, so a
// concurrent loader of the same warehouse blocks on the marker's key and
// then sees a unique violation, and a killed load leaves nothing. Its
// size (about 70 MB per warehouse) is routine for PostgreSQL.
//
// CockroachDB limits transaction size, so there the unit is: delete any
// rows a killed earlier attempt left, COPY each table (CockroachDB commits
// COPY in batches), then insert the marker. The marker is the last write,
// so "marked" still implies "complete".
func loadUnit(ctx context.Context, conn *pgx.Conn, d Dialect, w int, jobs []tableJob, rows *atomic.Int64, beforeCommit func()) (bool, error) {
	onRows := func(n int64) { rows.Add(n) }
	if d == Cockroach {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+loadedTable+` WHERE w_id = $1)`, w).Scan(&exists); err != nil {
			return false, fmt.Errorf("read marker: %w", err)
		}
		if exists {
			return false, nil
		}
		// Since v22.2 a COPY is one transaction unless this is off; off, it
		// commits every batch, which is what keeps a warehouse's 300,000
		// order lines within CockroachDB's transaction limits. Older
		// versions do not know the setting and already batch.
		if _, err := conn.Exec(ctx, "SET copy_from_atomic_enabled = false"); err != nil && !isUndefinedParameter(err) {
			return false, fmt.Errorf("set copy_from_atomic_enabled: %w", err)
		}
		for _, j := range jobs {
			del := "DELETE FROM " + j.table.Name
			if w != itemsUnit {
				del += fmt.Sprintf(" WHERE %s = %d", j.table.WCol, w)
			}
			if _, err := conn.Exec(ctx, del); err != nil {
				return false, fmt.Errorf("%s: clear partial rows: %w", j.table.Name, err)
			}
		}
		for _, j := range jobs {
			if _, err := conn.PgConn().CopyFrom(ctx, newCopyReader(j.gen, onRows), j.table.copySQL()); err != nil {
				return false, fmt.Errorf("copy %s: %w", j.table.Name, err)
			}
		}
		if beforeCommit != nil {
			beforeCommit()
		}
		if _, err := conn.Exec(ctx, `INSERT INTO `+loadedTable+` (w_id) VALUES ($1) ON CONFLICT (w_id) DO NOTHING`, w); err != nil {
			return false, fmt.Errorf("write marker: %w", err)
		}
		return true, nil
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(context.Background()) // no-op after Commit
	if _, err := tx.Exec(ctx, `INSERT INTO `+loadedTable+` (w_id) VALUES ($1)`, w); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23505" {
			return false, nil // loaded (or being loaded and now committed) by another loader
		}
		return false, fmt.Errorf("write marker: %w", err)
	}
	var copied int64
	for _, j := range jobs {
		r := newCopyReader(j.gen, onRows)
		if _, err := conn.PgConn().CopyFrom(ctx, r, j.table.copySQL()); err != nil {
			rows.Add(-copied - r.rows.Load())
			return false, fmt.Errorf("copy %s: %w", j.table.Name, err)
		}
		copied += r.rows.Load()
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	if err := tx.Commit(ctx); err != nil {
		rows.Add(-copied)
		return false, fmt.Errorf("commit: %w", err)
	}
	return true, nil
}

func isUndefinedParameter(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42704"
}
