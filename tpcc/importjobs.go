package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// An IMPORT runs as a job on the cluster. The statement's connection only
// waits for it: when that connection breaks (a node-liveness blip,
// cockroach#35182; "relation is offline: importing", #94335) the job goes
// on. So progress and resumption read the jobs, not the statement.

// ImportJobsQuery lists IMPORT jobs, newest first. crdb_internal.jobs has
// these columns in every release since v19.1; fraction_completed is NULL
// until the job reports progress.
const ImportJobsQuery = `SELECT job_id, status, coalesce(fraction_completed, 0), description, coalesce(error, '')
FROM crdb_internal.jobs WHERE job_type = 'IMPORT' ORDER BY created DESC`

// ImportJob is one IMPORT job of crdb_internal.jobs (or SHOW JOBS).
type ImportJob struct {
	ID       int64
	Status   string // pending, running, paused, succeeded, failed, canceled, ...
	Fraction float64
	Error    string
	// From the description: the table (workload:// source path or the
	// IMPORT TABLE/INTO target), the database when the target is
	// qualified, and the generator's --warehouses and --seed when the
	// sources are workload:// URLs.
	Table, DB        string
	Warehouses, Seed string
}

// Done says whether the job reached a terminal status.
func (j ImportJob) Done() bool {
	switch j.Status {
	case "succeeded", "failed", "canceled":
		return true
	}
	return false
}

var (
	workloadSourceRE = regexp.MustCompile(`workload:///csv/tpcc/([a-z_]+)\?([^'\s,)]*)`)
	importTargetRE   = regexp.MustCompile(`(?i)^\s*IMPORT\s+(?:TABLE|INTO)\s+((?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)(?:\.(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*))*)`)
)

// ParseImportJob interprets one row of ImportJobsQuery. The table comes
// from the first workload:// source in the description (which also gives
// --warehouses and --seed, so a job of an import with other flags is not
// mistaken for ours) or else from the IMPORT target; a description with
// neither is not a TPC-C import (error).
func ParseImportJob(id int64, status string, fraction float64, description, errText string) (ImportJob, error) {
	j := ImportJob{ID: id, Status: strings.ToLower(strings.TrimSpace(status)), Fraction: fraction, Error: errText}
	if j.Fraction < 0 || j.Fraction > 1 || j.Fraction != j.Fraction {
		j.Fraction = 0
	}
	if m := importTargetRE.FindStringSubmatch(description); m != nil {
		parts := splitQualified(m[1])
		j.Table = parts[len(parts)-1]
		if len(parts) == 3 {
			j.DB = parts[0]
		}
	}
	if m := workloadSourceRE.FindStringSubmatch(description); m != nil {
		j.Table = m[1]
		if q, err := url.ParseQuery(m[2]); err == nil {
			j.Warehouses, j.Seed = q.Get("warehouses"), q.Get("seed")
		}
	}
	if j.Table == "" {
		return ImportJob{}, fmt.Errorf("job %d: not a tpcc import: %.80q", id, description)
	}
	return j, nil
}

// splitQualified splits db.schema."table" into unquoted parts.
func splitQualified(s string) []string {
	var parts []string
	for len(s) > 0 {
		if s[0] == '"' {
			i := 1
			var b strings.Builder
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					break
				}
				b.WriteByte(s[i])
				i++
			}
			parts = append(parts, b.String())
			s = s[min(i+1, len(s)):]
		} else {
			i := strings.IndexByte(s, '.')
			if i < 0 {
				i = len(s)
			}
			parts = append(parts, strings.ToLower(s[:i]))
			s = s[i:]
		}
		s = strings.TrimPrefix(s, ".")
	}
	if len(parts) == 0 {
		parts = []string{""}
	}
	return parts
}

// importAction is what an import does for one table, given its jobs.
type importAction int

const (
	actStart  importAction = iota // no usable job: issue the IMPORT
	actAttach                     // a job is running: wait for it
	actSkip                       // a job succeeded: nothing to do
	actPaused                     // a job is paused: the user decides
)

// decideImport picks the action for table from the jobs (newest first):
// the newest job of this table, database and generator flags decides;
// failed and canceled jobs rolled back and are ignored.
func decideImport(table, db, warehouses, seed string, jobs []ImportJob) (importAction, ImportJob) {
	for _, j := range jobs {
		if j.Table != table || (j.DB != "" && j.DB != db) ||
			(j.Warehouses != "" && j.Warehouses != warehouses) || (j.Seed != "" && j.Seed != seed) {
			continue
		}
		switch j.Status {
		case "succeeded":
			return actSkip, j
		case "failed", "canceled", "reverting", "cancel-requested":
			continue
		case "paused", "pause-requested":
			return actPaused, j
		default: // pending, running, retrying
			return actAttach, j
		}
	}
	return actStart, ImportJob{}
}

// ImportDB is what Import needs: *pgxpool.Pool.
type ImportDB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var _ ImportDB = (*pgxpool.Pool)(nil)

// listImportJobs reads and parses the IMPORT jobs, skipping non-TPC-C ones.
func listImportJobs(ctx context.Context, db ImportDB) ([]ImportJob, error) {
	rows, err := db.Query(ctx, ImportJobsQuery)
	if err != nil {
		return nil, fmt.Errorf("read IMPORT jobs: %w", err)
	}
	defer rows.Close()
	var out []ImportJob
	for rows.Next() {
		var (
			id                  int64
			status, desc, errTx string
			frac                float64
		)
		if err := rows.Scan(&id, &status, &frac, &desc, &errTx); err != nil {
			return nil, fmt.Errorf("read IMPORT jobs: %w", err)
		}
		if j, err := ParseImportJob(id, status, frac, desc, errTx); err == nil {
			out = append(out, j)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read IMPORT jobs: %w", err)
	}
	return out, nil
}

// ImportRunOptions tune Import's execution.
type ImportRunOptions struct {
	Out  io.Writer     // progress (nil: discard)
	Poll time.Duration // job polling period (0: 10s)
	// Terminal: Out is a terminal, where the overall progress line is
	// redrawn in place and tables print only when their status changes.
	Terminal bool
}

// Import executes a plan: it creates the database, imports the nine
// tables in parallel (attaching to jobs already running for them and
// skipping tables already imported, so a re-run resumes), injects the
// statistics with automatic collection off, then splits, adds the
// foreign keys, partitions (unless already partitioned the same way) and
// scatters. The pool must be connected to plan.Options.DB with at least
// ten connections.
func Import(ctx context.Context, db ImportDB, plan *ImportPlan, ro ImportRunOptions) error {
	out := ro.Out
	if out == nil {
		out = io.Discard
	}
	if ro.Poll <= 0 {
		ro.Poll = 10 * time.Second
	}
	o := plan.Options
	p := newProgressPrinter(out, ro.Terminal)
	defer p.close()
	say := func(format string, args ...any) { p.println(fmt.Sprintf(format, args...)) }
	if _, err := db.Exec(ctx, plan.CreateDatabase); err != nil {
		return fmt.Errorf("import: %s: %w", plan.CreateDatabase, err)
	}
	if o.InjectStats {
		// As workload: no automatic statistics while importing, so the
		// injected ones are not followed by full-table scans.
		var on bool
		if err := db.QueryRow(ctx, `SHOW CLUSTER SETTING sql.stats.automatic_collection.enabled`).Scan(&on); err == nil && on {
			if _, err := db.Exec(ctx, `SET CLUSTER SETTING sql.stats.automatic_collection.enabled = false`); err == nil {
				defer func() {
					if _, err := db.Exec(context.WithoutCancel(ctx), `SET CLUSTER SETTING sql.stats.automatic_collection.enabled = true`); err != nil {
						say("import: re-enable automatic statistics: %v", err)
					}
				}()
			}
		}
	}
	for _, s := range plan.CreateTables {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("import: %s: %w", firstLine(s), err)
		}
	}

	// Progress: every poll, the overall line (tables done, rows estimated
	// from the jobs' fractions, rate, ETA); and one line per table
	// whenever its job's status changes or, off a terminal, its fraction
	// moves by a percent. Rows already imported (a resumed import) are
	// not counted in the rate.
	tables := make([]string, len(plan.Imports))
	for i, ti := range plan.Imports {
		tables[i] = ti.Table
	}
	step := 0.01
	if ro.Terminal {
		step = 2 // never: the overall line shows the fractions
	}
	start := time.Now()
	var rowsAtStart int64
	if jobs, err := listImportJobs(ctx, db); err == nil {
		rowsAtStart = importStatus(tables, o.Warehouses, latestJobs(jobs, o), 0, 0).Rows
	}
	pollCtx, stopPoll := context.WithCancel(ctx)
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		last := map[string]ImportJob{}
		t := time.NewTicker(ro.Poll)
		defer t.Stop()
		for {
			select {
			case <-pollCtx.Done():
				return
			case <-t.C:
			}
			jobs, err := listImportJobs(pollCtx, db)
			if err != nil {
				continue
			}
			for _, line := range progressLines(jobs, o, last, step) {
				p.println(line)
			}
			p.status(FormatProgress(importStatus(tables, o.Warehouses, latestJobs(jobs, o), time.Since(start), rowsAtStart)))
		}
	}()

	ws, seed := fmt.Sprint(o.Warehouses), fmt.Sprint(o.Seed)
	g, gctx := errgroup.WithContext(ctx)
	for _, ti := range plan.Imports {
		g.Go(func() error {
			return importTable(gctx, db, o, ti, ws, seed, ro.Poll, say)
		})
	}
	err := g.Wait()
	stopPoll()
	<-pollDone
	if err != nil {
		return err
	}
	all := importStatus(tables, o.Warehouses, nil, time.Since(start), rowsAtStart)
	all.Done, all.Rows, all.Final = all.Total, all.RowsTotal, true
	p.done(FormatProgress(all))
	for _, s := range plan.Splits {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("import: split: %s: %w", s, err)
		}
	}
	for _, s := range plan.ForeignKeys {
		if _, err := db.Exec(ctx, s); err != nil {
			// workload ignores an FK that exists already (a re-run).
			if !strings.Contains(err.Error(), "columns cannot be used by multiple foreign key constraints") &&
				!strings.Contains(err.Error(), "already exists") {
				return fmt.Errorf("import: %s: %w", s, err)
			}
		}
	}
	if len(plan.Partition) > 0 {
		var have int
		if err := db.QueryRow(ctx, PartitionCountQuery).Scan(&have); err != nil {
			return fmt.Errorf("import: could not determine if tables are partitioned: %w", err)
		}
		switch have {
		case o.Partitions:
			say("import: already partitioned %d ways", have)
		case 0:
			say("import: partitioning %d ways (%d statements)", o.Partitions, len(plan.Partition))
			for _, s := range plan.Partition {
				if _, err := db.Exec(ctx, s); err != nil {
					return fmt.Errorf("import: partition: %s: %w", firstLine(s), err)
				}
			}
		default:
			return fmt.Errorf("import: tables are not partitioned %d way(s) (they are %d ways)", o.Partitions, have)
		}
	}
	for _, s := range plan.Scatter {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("import: %s: %w", s, err)
		}
	}
	return nil
}

// latestJobs is each table's newest job of this import (database,
// warehouses and seed).
func latestJobs(jobs []ImportJob, o ImportOptions) map[string]ImportJob {
	ws, seed := fmt.Sprint(o.Warehouses), fmt.Sprint(o.Seed)
	out := map[string]ImportJob{}
	for _, j := range jobs { // newest first: the first per table counts
		if _, seen := out[j.Table]; seen || (j.DB != "" && j.DB != o.DB) || (j.Warehouses != "" && j.Warehouses != ws) || (j.Seed != "" && j.Seed != seed) {
			continue
		}
		out[j.Table] = j
	}
	return out
}

// progressLines returns the lines to print for jobs whose status changed
// or whose fraction moved by step since last (updated in place), in table
// order.
func progressLines(jobs []ImportJob, o ImportOptions, last map[string]ImportJob, step float64) []string {
	var lines []string
	for table, j := range latestJobs(jobs, o) {
		prev, ok := last[table]
		if ok && prev.ID == j.ID && prev.Status == j.Status && j.Fraction-prev.Fraction < step {
			continue
		}
		last[table] = j
		lines = append(lines, FormatJobProgress(j))
	}
	sort.Strings(lines)
	return lines
}

// FormatJobProgress is one progress line: table, percent, status, job.
func FormatJobProgress(j ImportJob) string {
	s := fmt.Sprintf("import %-10s %5.1f%%  %-9s job %d", j.Table, 100*j.Fraction, j.Status, j.ID)
	if j.Error != "" {
		s += ": " + j.Error
	}
	return s
}

// importTable imports one table unless its job already ran or runs.
func importTable(ctx context.Context, db ImportDB, o ImportOptions, ti TableImport, ws, seed string, poll time.Duration, say func(string, ...any)) error {
	jobs, err := listImportJobs(ctx, db)
	if err != nil {
		return fmt.Errorf("import %s: %w", ti.Table, err)
	}
	act, job := decideImport(ti.Table, o.DB, ws, seed, jobs)
	switch act {
	case actSkip:
		say("import %-10s already imported (job %d)", ti.Table, job.ID)
		return nil
	case actPaused:
		return fmt.Errorf("import %s: job %d is paused: RESUME JOB %d or CANCEL JOB %d, then re-run", ti.Table, job.ID, job.ID, job.ID)
	case actAttach:
		say("import %-10s attaching to running job %d (%.1f%%)", ti.Table, job.ID, 100*job.Fraction)
		return finishTable(ctx, db, ti, waitJob(ctx, db, job.ID, poll), say)
	}
	// No job: a table imported long ago (jobs are garbage-collected) is
	// recognised by its rows; IMPORT is atomic, so any row means all.
	if done, err := tableHasRows(ctx, db, o, ti.Table); err != nil {
		return fmt.Errorf("import %s: %w", ti.Table, err)
	} else if done {
		say("import %-10s already imported (table has rows)", ti.Table)
		return nil
	}
	start := time.Now()
	args := make([]any, len(ti.Sources))
	for i, s := range ti.Sources {
		args[i] = s
	}
	rowCount, bytes, err := runImport(ctx, db, ti.SQL, args)
	if err != nil {
		// The job may outlive the connection: find it and wait for it.
		if jobs, jerr := listImportJobs(ctx, db); jerr == nil {
			if act, job := decideImport(ti.Table, o.DB, ws, seed, jobs); act == actAttach || act == actSkip {
				say("import %-10s statement failed (%v); its job %d goes on, waiting", ti.Table, err, job.ID)
				return finishTable(ctx, db, ti, waitJob(ctx, db, job.ID, poll), say)
			}
		}
		return fmt.Errorf("import %s: %w", ti.Table, err)
	}
	say("import %-10s done: %d rows, %s, took %s", ti.Table, rowCount, human(float64(bytes))+"B", time.Since(start).Round(time.Second))
	return finishTable(ctx, db, ti, nil, say)
}

// finishTable injects the table's statistics once its import succeeded.
func finishTable(ctx context.Context, db ImportDB, ti TableImport, jobErr error, say func(string, ...any)) error {
	if jobErr != nil {
		return fmt.Errorf("import %s: %w", ti.Table, jobErr)
	}
	if ti.Stats == "" {
		return nil
	}
	if _, err := db.Exec(ctx, ti.Stats); err != nil {
		return fmt.Errorf("import %s: inject statistics: %w", ti.Table, err)
	}
	return nil
}

// runImport issues one IMPORT and reads its result row: job_id, status,
// fraction_completed, rows, index_entries, [system_records,] bytes.
func runImport(ctx context.Context, db ImportDB, sql string, args []any) (rows, bytes int64, err error) {
	r, err := db.Query(ctx, sql, args...)
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return 0, 0, err
		}
		return 0, 0, errors.New("IMPORT returned no row")
	}
	vals, err := r.Values()
	if err != nil {
		return 0, 0, err
	}
	rows, bytes = ImportResult(vals)
	r.Close()
	return rows, bytes, r.Err()
}

// ImportResult reads the rows and bytes of an IMPORT result row (6
// columns, or 7 with system_records in some releases; bytes is last).
func ImportResult(vals []any) (rows, bytes int64) {
	toInt := func(v any) int64 {
		switch x := v.(type) {
		case int64:
			return x
		case int32:
			return int64(x)
		case int:
			return int64(x)
		}
		return 0
	}
	if len(vals) >= 6 {
		rows, bytes = toInt(vals[3]), toInt(vals[len(vals)-1])
	}
	return rows, bytes
}

// waitJob polls a job until it ends; nil when it succeeded.
func waitJob(ctx context.Context, db ImportDB, id int64, poll time.Duration) error {
	for {
		var status, errText string
		err := db.QueryRow(ctx, `SELECT status, coalesce(error, '') FROM crdb_internal.jobs WHERE job_id = $1`, id).Scan(&status, &errText)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			switch status {
			case "succeeded":
				return nil
			case "failed", "canceled":
				return fmt.Errorf("job %d %s: %s", id, status, errText)
			case "paused":
				return fmt.Errorf("job %d is paused: RESUME JOB %d, then re-run", id, id)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// tableHasRows says whether the table exists with at least one row. An
// IMPORT TABLE in flight keeps its table offline (not listed), so it
// counts as absent; its job is found before this is asked.
func tableHasRows(ctx context.Context, db ImportDB, o ImportOptions, table string) (bool, error) {
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_catalog = $1 AND table_schema = 'public' AND table_name = $2`,
		o.DB, table).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	var any bool
	if err := db.QueryRow(ctx, fmt.Sprintf(`SELECT EXISTS (SELECT 1 FROM "%s" LIMIT 1)`, table)).Scan(&any); err != nil {
		return false, err
	}
	return any, nil
}
