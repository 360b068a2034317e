package crud

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/redact"
)

// Config is one run of the benchmark. The zero values of the counts are
// not defaults: DefaultConfig has the seed's (100, 400, 10, 300). Each
// field's flag tag declares its flag of `benchrig crud`.
type Config struct {
	// URLs are connection strings; goroutine g uses URLs[g % len(URLs)].
	// The table is set up through URLs[0].
	URLs []string
	// Goroutines is the number of concurrent clients, each with its own
	// connection.
	Goroutines int `flag:"goroutines" usage:"concurrent clients, one connection each"`
	// Records is the number of records each goroutine inserts and updates.
	Records int `flag:"records" usage:"records inserted and updated per goroutine"`
	// SelectRepeat is how many times each goroutine selects each of its
	// records by key; 0 skips the phase.
	SelectRepeat int `flag:"select-repeat" usage:"times each goroutine selects each of its records (0 skips)"`
	// ManyRepeat is how many range queries each goroutine runs over its
	// own records; 0 skips the phase.
	ManyRepeat int `flag:"many-repeat" usage:"range queries per goroutine over all its records (0 skips)"`
	// Table is the table name, optionally schema-qualified ("s.t").
	Table string `flag:"table" usage:"table name (schema.table allowed)"`
	// Drop drops and recreates the table before the run.
	Drop bool `flag:"drop" usage:"drop and recreate the table first (else only this run's keys are deleted)"`
	// KeyOffset shifts every key, so that several hosts can share a table
	// with disjoint ranges.
	KeyOffset int64 `flag:"key-offset" usage:"shift all keys, so several hosts can share the table"`
	// Progress, when set, receives one line per finished phase.
	Progress io.Writer
}

// DefaultConfig is the seed's benchmark: 100 goroutines of 400 records,
// each selected 10 times, and 300 range queries per goroutine; the flags
// of `benchrig crud` start from it (their tags are on Config's fields).
func DefaultConfig() Config {
	return Config{Goroutines: 100, Records: 400, SelectRepeat: 10, ManyRepeat: 300, Table: "crud_bench"}
}

// Validate reports every problem of the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if len(c.URLs) == 0 {
		errs = append(errs, errors.New("no connection URL"))
	}
	if c.Goroutines < 1 {
		errs = append(errs, fmt.Errorf("goroutines %d: want >= 1", c.Goroutines))
	}
	if c.Records < 1 {
		errs = append(errs, fmt.Errorf("records %d: want >= 1", c.Records))
	}
	if c.SelectRepeat < 0 {
		errs = append(errs, fmt.Errorf("select-repeat %d: want >= 0", c.SelectRepeat))
	}
	if c.ManyRepeat < 0 {
		errs = append(errs, fmt.Errorf("many-repeat %d: want >= 0", c.ManyRepeat))
	}
	if c.KeyOffset < 0 {
		errs = append(errs, fmt.Errorf("key-offset %d: want >= 0", c.KeyOffset))
	}
	if _, err := tableIdent(c.Table); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Result holds the counts and phase durations of a run; the nine figures
// of the seed are its methods (and Columns).
type Result struct {
	Goroutines, Records, SelectRepeat, ManyRepeat int

	Inserts     int64 // rows inserted
	Updates     int64 // rows updated
	Selects     int64 // single-row selects
	ManyQueries int64 // select-many queries
	ManyRows    int64 // rows returned by the select-many queries

	InsertDur, UpdateDur, SelectDur, ManyDur time.Duration

	// Latencies of single statements (a select-many query for ManyLat),
	// beyond the seed's figures: a phase's rate hides whether every
	// statement was a little slower or a few stalled.
	InsertLat, UpdateLat, SelectLat, ManyLat Latency
}

// Latency summarises a phase's statement latencies (1% precision).
type Latency struct {
	P50, P95, P99, Max time.Duration
}

// Histogram bounds: 1 µs to 10 min at two significant digits, about 30 KiB
// per goroutine, so that a thousand goroutines stay cheap; three digits
// would cost 8 times that for precision no one reads off a p99.
const (
	histMin    = int64(time.Microsecond)
	histMax    = int64(10 * time.Minute)
	histDigits = 2
)

func newHist() *hdr.Histogram { return hdr.New(histMin, histMax, histDigits) }

// record adds one statement's latency, clamped into the histogram's range
// rather than dropped: a 20-minute stall still counts as the maximum.
func record(h *hdr.Histogram, start time.Time) {
	d := min(max(int64(time.Since(start)), histMin), histMax)
	_ = h.RecordValue(d) // in range by construction
}

func summarise(h *hdr.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		P50: time.Duration(h.ValueAtQuantile(50)),
		P95: time.Duration(h.ValueAtQuantile(95)),
		P99: time.Duration(h.ValueAtQuantile(99)),
		Max: time.Duration(h.Max()),
	}
}

// rate is n per second of d; 0 for an empty or skipped phase rather than
// an infinity that would break the table and the JSON.
func rate(n int64, d time.Duration) float64 {
	if n == 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// InsertQPS is the seed's "Insert Q/s": inserts / Ins Dur.
func (r Result) InsertQPS() float64 { return rate(r.Inserts, r.InsertDur) }

// UpdateQPS is the seed's "Update Q/s": updates / Upd Dur.
func (r Result) UpdateQPS() float64 { return rate(r.Updates, r.UpdateDur) }

// Select1QPS is the seed's "Select1 Q/s": single-row selects / Sel Dur.
func (r Result) Select1QPS() float64 { return rate(r.Selects, r.SelectDur) }

// SelManyRowsPerSec is the seed's "SelMany Row/s": rows returned / Many Dur.
func (r Result) SelManyRowsPerSec() float64 { return rate(r.ManyRows, r.ManyDur) }

// SelManyQPS is the seed's "SelMany Q/s": queries / Many Dur.
func (r Result) SelManyQPS() float64 { return rate(r.ManyQueries, r.ManyDur) }

// CheckError is a phase whose database answer was not what the phase
// wrote: a lost update, a stale or missing row, a short range. The CLI
// maps it to exit code 30 (a benchmark check failed).
type CheckError struct {
	Phase string // insert, update, select-one, select-many
	Key   int64  // the record's id, or the range's first id
	Want  string
	Got   string
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("%s check: key %d: got %s, want %s", e.Phase, e.Key, e.Got, e.Want)
}

// Statement names, prepared on every connection.
const (
	stmtInsert = "crud_insert"
	stmtUpdate = "crud_update"
	stmtSelect = "crud_select"
	stmtMany   = "crud_many"
)

// CheckTable says whether name can be the benchmark's table (Config.Table):
// the rule Run applies, for a plan's validation to apply first.
func CheckTable(name string) error {
	_, err := tableIdent(name)
	return err
}

// tableIdent parses a possibly schema-qualified table name into a quoted
// identifier, so a name is never spliced into SQL unquoted.
func tableIdent(name string) (string, error) {
	if name == "" {
		return "", errors.New("table name is empty")
	}
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return "", fmt.Errorf("table %q: want name or schema.name", name)
	}
	for _, p := range parts {
		if p == "" {
			return "", fmt.Errorf("table %q: empty name part", name)
		}
	}
	return pgx.Identifier(parts).Sanitize(), nil
}

// statements returns the four prepared statements for table t (quoted).
func statements(t string) map[string]string {
	return map[string]string{
		stmtInsert: "INSERT INTO " + t + " (id, content) VALUES ($1, $2)",
		stmtUpdate: "UPDATE " + t + " SET content = $2 WHERE id = $1",
		stmtSelect: "SELECT content FROM " + t + " WHERE id = $1",
		stmtMany:   "SELECT id, content FROM " + t + " WHERE id BETWEEN $1 AND $2 ORDER BY id",
	}
}

// insertedContent and updatedContent are the record strings the phases
// write; the checks compare against them. Different lengths, so that an
// update is not an in-place overwrite of identical bytes.
func insertedContent(id int64) string { return "record " + strconv.FormatInt(id, 10) }
func updatedContent(id int64) string {
	return "updated record " + strconv.FormatInt(id, 10)
}

// client is one goroutine's connection and key range [lo, hi].
type client struct {
	conn   *pgxpool.Conn
	lo, hi int64
	hist   *hdr.Histogram // this phase's statement latencies
}

// Run sets the table up, runs the four phases and returns their figures.
// On error nothing partial is returned: a benchmark with a failed phase
// has no meaningful figures.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, fmt.Errorf("crud: %w", err)
	}
	table, _ := tableIdent(cfg.Table)
	if err := setup(ctx, cfg, table); err != nil {
		return Result{}, fmt.Errorf("crud: setup of table %s: %w", cfg.Table, err)
	}
	pools, clients, err := connect(ctx, cfg, statements(table))
	defer func() {
		for _, c := range clients {
			if c.conn != nil {
				c.conn.Release()
			}
		}
		for _, p := range pools {
			if p != nil {
				p.Close()
			}
		}
	}()
	if err != nil {
		return Result{}, fmt.Errorf("crud: %w", err)
	}

	res := Result{Goroutines: cfg.Goroutines, Records: cfg.Records,
		SelectRepeat: cfg.SelectRepeat, ManyRepeat: cfg.ManyRepeat}
	n := int64(cfg.Goroutines) * int64(cfg.Records)
	type phase struct {
		name  string
		skip  bool
		fn    func(context.Context, client) (int64, error)
		dur   *time.Duration
		lat   *Latency
		count *int64
		unit  string // what count counts, for the progress line
	}
	phases := []phase{
		{"insert", false, insertAll, &res.InsertDur, &res.InsertLat, &res.Inserts, "inserts"},
		{"update", false, updateAll, &res.UpdateDur, &res.UpdateLat, &res.Updates, "updates"},
		{"select-one", cfg.SelectRepeat == 0, selectOne(cfg.SelectRepeat), &res.SelectDur, &res.SelectLat, &res.Selects, "selects"},
		{"select-many", cfg.ManyRepeat == 0, selectMany(cfg.ManyRepeat), &res.ManyDur, &res.ManyLat, &res.ManyRows, "rows"},
	}
	for _, ph := range phases {
		if ph.skip {
			continue
		}
		d, lat, count, err := runPhase(ctx, clients, ph.fn)
		if err != nil {
			return Result{}, fmt.Errorf("crud: %s phase: %w", ph.name, err)
		}
		*ph.dur, *ph.lat, *ph.count = d, lat, count
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "crud: %-11s %9d %-7s in %8v  %10.0f/s  p50 %v  p99 %v  max %v\n",
				ph.name, count, ph.unit, d.Round(time.Millisecond), rate(count, d),
				roundLat(lat.P50), roundLat(lat.P99), roundLat(lat.Max))
		}
	}
	// Every goroutine checked its own rows; the totals must then be what
	// the configuration asks for, else a phase silently did less work.
	for _, c := range []struct {
		what      string
		got, want int64
	}{
		{"inserts", res.Inserts, n},
		{"updates", res.Updates, n},
		{"selects", res.Selects, n * int64(cfg.SelectRepeat)},
		{"select-many rows", res.ManyRows, n * int64(cfg.ManyRepeat)},
	} {
		if c.got != c.want {
			return Result{}, fmt.Errorf("crud: %d %s, want %d", c.got, c.what, c.want)
		}
	}
	res.ManyQueries = int64(cfg.Goroutines) * int64(cfg.ManyRepeat)
	return res, nil
}

// setup creates (or recreates) the table and empties the run's key range.
func setup(ctx context.Context, cfg Config, table string) error {
	conn, err := pgx.Connect(ctx, cfg.URLs[0])
	if err != nil {
		return fmt.Errorf("connect %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if cfg.Drop {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
			return fmt.Errorf("drop: %w", err)
		}
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+table+" (id BIGINT PRIMARY KEY, content TEXT NOT NULL)"); err != nil {
		// Several hosts sharing the table create it at the same moment;
		// PostgreSQL's IF NOT EXISTS is not atomic and the loser gets a
		// unique violation on its catalog (pg_type), "type already
		// exists" or "relation already exists" instead. The table exists
		// either way.
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || !lostCreateRace(pe.Code) {
			return fmt.Errorf("create: %w", err)
		}
	}
	if !cfg.Drop {
		lo := cfg.KeyOffset + 1
		hi := cfg.KeyOffset + int64(cfg.Goroutines)*int64(cfg.Records)
		if _, err := conn.Exec(ctx, "DELETE FROM "+table+" WHERE id BETWEEN $1 AND $2", lo, hi); err != nil {
			return fmt.Errorf("delete keys %d-%d of a previous run: %w", lo, hi, err)
		}
	}
	return nil
}

// lostCreateRace reports whether a CREATE TABLE IF NOT EXISTS failed only
// because a concurrent session created the same table first.
func lostCreateRace(code string) bool {
	switch code {
	case "23505", // unique_violation (pg_type_typname_nsp_index)
		"42710", // duplicate_object (type already exists)
		"42P07": // duplicate_table
		return true
	}
	return false
}

// connect opens one pool per URL, sized to the goroutines it serves, and
// acquires every goroutine's connection up front, statements prepared, so
// that connection set-up is outside every measured phase.
func connect(ctx context.Context, cfg Config, stmts map[string]string) ([]*pgxpool.Pool, []client, error) {
	per := make([]int32, len(cfg.URLs))
	for g := range cfg.Goroutines {
		per[g%len(cfg.URLs)]++
	}
	pools := make([]*pgxpool.Pool, len(cfg.URLs)) // nil for a URL serving no goroutine
	clients := make([]client, cfg.Goroutines)
	for i, u := range cfg.URLs {
		if per[i] == 0 {
			continue
		}
		pc, err := pgxpool.ParseConfig(u)
		if err != nil {
			return pools, clients, fmt.Errorf("parse URL %s: %w", redact.URL(u), err)
		}
		pc.MaxConns = per[i]
		pc.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			for name, sql := range stmts {
				if _, err := c.Prepare(ctx, name, sql); err != nil {
					return fmt.Errorf("prepare %s: %w", name, err)
				}
			}
			return nil
		}
		p, err := pgxpool.NewWithConfig(ctx, pc)
		if err != nil {
			return pools, clients, fmt.Errorf("pool for %s: %w", redact.URL(u), err)
		}
		pools[i] = p
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(cfg.Goroutines, 32)) // a connection storm only queues in the server's accept loop
	for i := range clients {
		lo := cfg.KeyOffset + int64(i)*int64(cfg.Records) + 1
		clients[i].lo, clients[i].hi = lo, lo+int64(cfg.Records)-1
		clients[i].hist = newHist()
		u := i % len(cfg.URLs)
		g.Go(func() error {
			c, err := pools[u].Acquire(gctx)
			if err != nil {
				var pe *pgconn.PgError
				if errors.As(err, &pe) && pe.Code == "53300" { // too_many_connections
					return fmt.Errorf("goroutine %d: connect %s: %w (every goroutine holds a connection: raise the server's max_connections above %d or run fewer goroutines)",
						i, redact.URL(cfg.URLs[u]), err, int(per[u]))
				}
				return fmt.Errorf("goroutine %d: connect %s: %w", i, redact.URL(cfg.URLs[u]), err)
			}
			clients[i].conn = c
			return nil
		})
	}
	return pools, clients, g.Wait()
}

// roundLat keeps three significant digits of a latency for display.
func roundLat(d time.Duration) time.Duration {
	for r := time.Duration(1); r < time.Hour; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
	return d
}

// runPhase releases fn on every client at once and measures wall clock
// until the last one returns; the count is the sum over clients, the
// latency summary is over all clients' statements.
func runPhase(ctx context.Context, clients []client, fn func(context.Context, client) (int64, error)) (time.Duration, Latency, int64, error) {
	for _, c := range clients {
		c.hist.Reset()
	}
	counts := make([]int64, len(clients))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(len(clients)) // one goroutine per client is the benchmark's concurrency
	start := make(chan struct{})
	for i, c := range clients {
		g.Go(func() error {
			select {
			case <-start:
			case <-gctx.Done():
				return gctx.Err()
			}
			n, err := fn(gctx, c)
			counts[i] = n
			if err != nil {
				return fmt.Errorf("goroutine %d (keys %d-%d): %w", i, c.lo, c.hi, err)
			}
			return nil
		})
	}
	t0 := time.Now()
	close(start)
	err := g.Wait()
	d := time.Since(t0)
	var total int64
	for _, n := range counts {
		total += n
	}
	all := newHist()
	for _, c := range clients {
		all.Merge(c.hist)
	}
	return d, summarise(all), total, err
}

func insertAll(ctx context.Context, c client) (int64, error) {
	var n int64
	for id := c.lo; id <= c.hi; id++ {
		t := time.Now()
		if _, err := c.conn.Exec(ctx, stmtInsert, id, insertedContent(id)); err != nil {
			return n, fmt.Errorf("insert key %d: %w", id, err)
		}
		record(c.hist, t)
		n++
	}
	return n, nil
}

func updateAll(ctx context.Context, c client) (int64, error) {
	var n int64
	for id := c.lo; id <= c.hi; id++ {
		t := time.Now()
		tag, err := c.conn.Exec(ctx, stmtUpdate, id, updatedContent(id))
		if err != nil {
			return n, fmt.Errorf("update key %d: %w", id, err)
		}
		record(c.hist, t)
		if tag.RowsAffected() != 1 {
			return n, &CheckError{Phase: "update", Key: id, Want: "1 row updated", Got: fmt.Sprintf("%d rows", tag.RowsAffected())}
		}
		n++
	}
	return n, nil
}

// selectOne selects each of the client's records repeat times, sweeping
// the range once per repeat.
func selectOne(repeat int) func(context.Context, client) (int64, error) {
	return func(ctx context.Context, c client) (int64, error) {
		var n int64
		var content string
		for range repeat {
			for id := c.lo; id <= c.hi; id++ {
				t := time.Now()
				if err := c.conn.QueryRow(ctx, stmtSelect, id).Scan(&content); err != nil {
					if errors.Is(err, pgx.ErrNoRows) {
						return n, &CheckError{Phase: "select-one", Key: id, Want: "1 row", Got: "no row"}
					}
					return n, fmt.Errorf("select key %d: %w", id, err)
				}
				record(c.hist, t)
				if want := updatedContent(id); content != want {
					return n, &CheckError{Phase: "select-one", Key: id, Want: strconv.Quote(want), Got: strconv.Quote(content)}
				}
				n++
			}
		}
		return n, nil
	}
}

// selectMany runs repeat range queries over the client's whole key range;
// the count it returns is rows, the query count is fixed by the config.
// The content column is fetched by the server and sent, but not decoded:
// the figure is the database's row rate, not the client's string copies.
func selectMany(repeat int) func(context.Context, client) (int64, error) {
	return func(ctx context.Context, c client) (int64, error) {
		var rows int64
		for range repeat {
			t := time.Now()
			got, err := rangeQuery(ctx, c)
			rows += got
			if err != nil {
				return rows, err
			}
			record(c.hist, t)
		}
		return rows, nil
	}
}

func rangeQuery(ctx context.Context, c client) (int64, error) {
	rs, err := c.conn.Query(ctx, stmtMany, c.lo, c.hi)
	if err != nil {
		return 0, fmt.Errorf("select keys %d-%d: %w", c.lo, c.hi, err)
	}
	defer rs.Close()
	var n int64
	var id int64
	for rs.Next() {
		if err := rs.Scan(&id, nil); err != nil {
			return n, fmt.Errorf("select keys %d-%d: scan: %w", c.lo, c.hi, err)
		}
		if want := c.lo + n; id != want {
			return n, &CheckError{Phase: "select-many", Key: c.lo, Want: fmt.Sprintf("id %d at row %d", want, n+1), Got: fmt.Sprintf("id %d", id)}
		}
		n++
	}
	if err := rs.Err(); err != nil {
		return n, fmt.Errorf("select keys %d-%d: %w", c.lo, c.hi, err)
	}
	if want := c.hi - c.lo + 1; n != want {
		return n, &CheckError{Phase: "select-many", Key: c.lo, Want: fmt.Sprintf("%d rows", want), Got: fmt.Sprintf("%d rows", n)}
	}
	return n, nil
}
