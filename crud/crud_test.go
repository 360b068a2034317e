package crud

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name+".golden", []byte(got))
}

// seedTMPFS reproduces the seed's TMPFS row from its own configuration
// (100 goroutines × 400 records, 10 and 300 repeats) and durations chosen
// so that the rates come out as printed.
func seedTMPFS() Result {
	return Result{
		Goroutines: 100, Records: 400, SelectRepeat: 10, ManyRepeat: 300,
		Inserts: 40000, Updates: 40000, Selects: 400000, ManyQueries: 30000, ManyRows: 12000000,
		InsertDur: 1273106*time.Microsecond + 500*time.Nanosecond,
		UpdateDur: 2075227 * time.Microsecond,
		SelectDur: 4921623 * time.Microsecond,
		ManyDur:   1464343 * time.Microsecond,
		InsertLat: Latency{P50: 2100 * time.Microsecond, P95: 5 * time.Millisecond, P99: 9 * time.Millisecond, Max: 31 * time.Millisecond},
		ManyLat:   Latency{P50: 4 * time.Millisecond, P95: 7 * time.Millisecond, P99: 12 * time.Millisecond, Max: 40 * time.Millisecond},
	}
}

func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Result
		// want: Insert, Update, Select1, SelMany Row/s, SelMany Q/s
		want [5]float64
	}{
		// 40,000 inserts in 2 s, and so on: the plain divisions.
		{"round", Result{Inserts: 40000, Updates: 40000, Selects: 400000, ManyQueries: 30000, ManyRows: 12000000,
			InsertDur: 2 * time.Second, UpdateDur: 4 * time.Second, SelectDur: 5 * time.Second, ManyDur: 1500 * time.Millisecond},
			[5]float64{20000, 10000, 80000, 8000000, 20000}},
		// The seed's TMPFS row: Row/s ÷ Q/s is the 400 rows of a range.
		{"seed TMPFS", seedTMPFS(), [5]float64{31419, 19275, 81274, 8194801, 20487}},
		// Skipped phases (repeat 0) have no rate, not NaN or +Inf.
		{"skipped", Result{Inserts: 10, Updates: 10, InsertDur: time.Second, UpdateDur: time.Second},
			[5]float64{10, 10, 0, 0, 0}},
		// A zero duration (impossible in a real run) is no rate either.
		{"zero duration", Result{Inserts: 10}, [5]float64{0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := [5]float64{tc.r.InsertQPS(), tc.r.UpdateQPS(), tc.r.Select1QPS(), tc.r.SelManyRowsPerSec(), tc.r.SelManyQPS()}
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 0.5 {
					t.Errorf("figure %d = %.2f, want %.0f", i, got[i], tc.want[i])
				}
			}
			cols := tc.r.Columns()
			if len(cols) != 9 {
				t.Fatalf("%d columns, want 9", len(cols))
			}
			for i, v := range got {
				if cols[4+i].Value != v {
					t.Errorf("column %q = %v, want %v", cols[4+i].Name, cols[4+i].Value, v)
				}
			}
		})
	}
}

func TestFormatGolden(t *testing.T) {
	small := Result{Goroutines: 8, Records: 50, SelectRepeat: 10, ManyRepeat: 300,
		Inserts: 400, Updates: 400, Selects: 4000, ManyQueries: 2400, ManyRows: 120000,
		InsertDur: 123456789, UpdateDur: 234567890, SelectDur: 345678901, ManyDur: 456789012,
		SelectLat: Latency{P50: 150 * time.Microsecond, P95: 410 * time.Microsecond, P99: 990 * time.Microsecond, Max: 3 * time.Millisecond}}
	rows := []Row{{"TMPFS (RAM)", seedTMPFS()}, {"loopback", small}}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"tsv", func(b *bytes.Buffer) error { return WriteTSV(b, "", Row{Result: small}) }},
		{"tsv_labels", func(b *bytes.Buffer) error { return WriteTSV(b, "Disk Type", rows...) }},
		{"aligned", func(b *bytes.Buffer) error { return WriteAligned(b, "", Row{Result: small}) }},
		{"aligned_labels", func(b *bytes.Buffer) error { return WriteAligned(b, "Disk Type", rows...) }},
		{"json", func(b *bytes.Buffer) error { return WriteJSON(b, "loopback", small) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.String())
		})
	}
}

func TestTSVHeaderIsTheSeeds(t *testing.T) {
	// The seed's header line, after its "Disk Type" column, verbatim.
	const seed = "Disk Type\tIns Dur (s)\tUpd Dur (s)\tSel Dur (s)\tMany Dur (s)\tInsert Q/s\tUpdate Q/s\tSelect1 Q/s\tSelMany Row/s\tSelMany Q/s"
	var b bytes.Buffer
	if err := WriteTSV(&b, "Disk Type", Row{"TMPFS (RAM)", seedTMPFS()}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != seed {
		t.Errorf("header\n%q\nwant\n%q", lines[0], seed)
	}
	// The rates of the seed's TMPFS line come back (durations at two
	// decimals instead of the seed's one).
	if want := "TMPFS (RAM)\t1.27\t2.08\t4.92\t1.46\t31419\t19275\t81274\t8194801\t20487"; lines[1] != want {
		t.Errorf("row\n%q\nwant\n%q", lines[1], want)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	in := seedTMPFS()
	if err := WriteJSON(&b, "tmpfs", in); err != nil {
		t.Fatal(err)
	}
	label, out, err := ReadJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if label != "tmpfs" || out != in {
		t.Errorf("round trip: %q %+v, want %q %+v", label, out, "tmpfs", in)
	}
	if _, _, err := ReadJSON([]byte(`{"workload":"tpcc"}`)); err == nil {
		t.Error("a non-crud document decoded without error")
	}
}

func TestValidate(t *testing.T) {
	ok := Config{URLs: []string{"postgres://127.0.0.1/x"}, Goroutines: 1, Records: 1, Table: "t"}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string // substring of the error; "" = valid
	}{
		{"minimal", func(*Config) {}, ""},
		{"schema-qualified table", func(c *Config) { c.Table = "bench.crud" }, ""},
		{"no URL", func(c *Config) { c.URLs = nil }, "no connection URL"},
		{"no goroutines", func(c *Config) { c.Goroutines = 0 }, "goroutines 0"},
		{"no records", func(c *Config) { c.Records = 0 }, "records 0"},
		{"negative repeat", func(c *Config) { c.ManyRepeat = -1 }, "many-repeat -1"},
		{"empty table", func(c *Config) { c.Table = "" }, "table name is empty"},
		{"three-part table", func(c *Config) { c.Table = "a.b.c" }, "schema.name"},
		// Every problem at once, not the first.
		{"two problems", func(c *Config) { c.Goroutines, c.Records = 0, 0 }, "goroutines 0: want >= 1\nrecords 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mod(&c)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Errorf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestRunPostgres runs the benchmark against a real PostgreSQL and checks
// the counts, the table's final state and that all nine figures are set.
func TestRunPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	var progress bytes.Buffer
	cfg := Config{URLs: []string{url, url}, Goroutines: 8, Records: 50, SelectRepeat: 3, ManyRepeat: 20,
		Table: "crud_bench", Drop: true, Progress: &progress}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserts != 400 || res.Updates != 400 || res.Selects != 1200 || res.ManyQueries != 160 || res.ManyRows != 8000 {
		t.Errorf("counts %+v", res)
	}
	for _, c := range res.Columns() {
		if !(c.Value > 0) || math.IsInf(c.Value, 0) {
			t.Errorf("%s = %v, want a positive figure", c.Name, c.Value)
		}
	}
	for _, ph := range []string{"insert", "update", "select-one", "select-many"} {
		if !strings.Contains(progress.String(), "crud: "+ph+" ") {
			t.Errorf("no progress line for %s in\n%s", ph, progress.String())
		}
	}
	for _, l := range []struct {
		phase string
		lat   Latency
		dur   time.Duration
	}{{"insert", res.InsertLat, res.InsertDur}, {"update", res.UpdateLat, res.UpdateDur},
		{"select-one", res.SelectLat, res.SelectDur}, {"select-many", res.ManyLat, res.ManyDur}} {
		// 1% histogram precision: allow P50 a hair above the next.
		if !(l.lat.P50 > 0 && l.lat.P50 <= l.lat.P95 && l.lat.P95 <= l.lat.P99 && l.lat.P99 <= l.lat.Max*101/100 && l.lat.Max <= l.dur*101/100) {
			t.Errorf("%s latency %+v not ordered within its phase's %v", l.phase, l.lat, l.dur)
		}
	}
	var b bytes.Buffer
	if err := WriteAligned(&b, "", Row{Result: res}); err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())
	t.Logf("8 goroutines × 50 records on loopback PostgreSQL (fsync off):\n%s", b.String())

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, minID, maxID int64
	var bad int64
	if err := conn.QueryRow(ctx, `SELECT count(*), min(id), max(id), count(*) FILTER (WHERE content <> 'updated record ' || id) FROM crud_bench`).Scan(&n, &minID, &maxID, &bad); err != nil {
		t.Fatal(err)
	}
	if n != 400 || minID != 1 || maxID != 400 || bad != 0 {
		t.Errorf("table: %d rows, ids %d-%d, %d not updated; want 400 rows, 1-400, 0", n, minID, maxID, bad)
	}

	// A rerun without --drop deletes its own range first and succeeds; a
	// second host's range (--key-offset) lives beside it.
	cfg.Drop, cfg.Progress = false, nil
	cfg.SelectRepeat, cfg.ManyRepeat = 0, 0 // skipped phases
	if res, err = Run(ctx, cfg); err != nil {
		t.Fatalf("rerun without drop: %v", err)
	}
	if res.SelectDur != 0 || res.Select1QPS() != 0 || res.ManyQueries != 0 {
		t.Errorf("skipped phases measured: %+v", res)
	}
	cfg.KeyOffset = 400
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatalf("second key range: %v", err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM crud_bench`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 800 {
		t.Errorf("%d rows after two key ranges, want 800", n)
	}
}

// TestRunDetectsLostRows makes the database lie: a trigger swallows the
// updates of some rows, so the update check must fail with a *CheckError.
func TestRunDetectsLostRows(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`CREATE TABLE lossy (id BIGINT PRIMARY KEY, content TEXT NOT NULL)`,
		// Returning NULL from a BEFORE UPDATE row trigger skips the row:
		// UPDATE reports 0 rows for id 37.
		`CREATE FUNCTION drop_37() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN IF NEW.id = 37 THEN RETURN NULL; END IF; RETURN NEW; END $$`,
		`CREATE TRIGGER lossy_upd BEFORE UPDATE ON lossy FOR EACH ROW EXECUTE FUNCTION drop_37()`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Run(ctx, Config{URLs: []string{url}, Goroutines: 4, Records: 20, SelectRepeat: 1, ManyRepeat: 1, Table: "lossy"})
	var ce *CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a *CheckError", err)
	}
	if ce.Phase != "update" || ce.Key != 37 {
		t.Errorf("check error %+v, want update of key 37", ce)
	}
	if !strings.Contains(err.Error(), "goroutine 1 (keys 21-40)") {
		t.Errorf("error %q does not say which goroutine", err)
	}

	// A row changed behind the benchmark's back is caught by select-one.
	if _, err := conn.Exec(ctx, `DROP TRIGGER lossy_upd ON lossy`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE FUNCTION stale() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN IF NEW.id = 5 THEN NEW.content := 'stale'; END IF; RETURN NEW; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `CREATE TRIGGER lossy_stale BEFORE UPDATE ON lossy FOR EACH ROW EXECUTE FUNCTION stale()`); err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, Config{URLs: []string{url}, Goroutines: 4, Records: 20, SelectRepeat: 1, ManyRepeat: 1, Table: "lossy"})
	if !errors.As(err, &ce) || ce.Phase != "select-one" || ce.Key != 5 {
		t.Fatalf("error %v, want a select-one *CheckError for key 5", err)
	}
}

func TestRunErrorsSayWhere(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	// A table with the wrong shape: the statements cannot be prepared.
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE wrong (id BIGINT PRIMARY KEY, other TEXT)`); err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, Config{URLs: []string{url}, Goroutines: 2, Records: 2, Table: "wrong"})
	if err == nil || !strings.Contains(err.Error(), "prepare crud_") {
		t.Errorf("wrong table: %v, want a prepare error", err)
	}
	// A cancelled context stops the run with the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Run(cctx, Config{URLs: []string{url}, Goroutines: 2, Records: 2, Table: "t"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestRunTooFewConnections: every goroutine holds a connection, so a
// server whose max_connections is below --goroutines must fail before the
// first phase, with a hint naming the setting.
func TestRunTooFewConnections(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync(), pgtest.Setting("max_connections", "8"))
	url := srv.NewDatabase(t)
	_, err := Run(context.Background(), Config{URLs: []string{url}, Goroutines: 12, Records: 2, Table: "t"})
	if err == nil || !strings.Contains(err.Error(), "raise the server's max_connections above 12") {
		t.Errorf("error %v, want the max_connections hint", err)
	}
}

// TestRunSharedTable: hosts sharing one table with disjoint --key-offset
// ranges run at the same time, each creating the table if missing.
func TestRunSharedTable(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	const hosts = 3
	errs := make([]error, hosts)
	done := make(chan int)
	for h := range hosts {
		go func() {
			_, errs[h] = Run(ctx, Config{URLs: []string{url}, Goroutines: 3, Records: 30, SelectRepeat: 1, ManyRepeat: 2,
				Table: "shared", KeyOffset: int64(h) * 90})
			done <- h
		}()
	}
	for range hosts {
		<-done
	}
	for h, err := range errs {
		if err != nil {
			t.Errorf("host %d: %v", h, err)
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n, distinct int64
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM shared WHERE id BETWEEN 1 AND 270`).Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 270 || distinct != 270 {
		t.Errorf("%d rows (%d distinct ids), want 270", n, distinct)
	}
}

func TestLatencySummary(t *testing.T) {
	h := newHist()
	// 1..100 ms, one each, plus one 20-minute stall clamped to the maximum.
	for ms := 1; ms <= 100; ms++ {
		_ = h.RecordValue(int64(ms) * int64(time.Millisecond))
	}
	record(h, time.Now().Add(-20*time.Minute))
	record(h, time.Now().Add(time.Hour)) // a clock step backwards: clamped to the minimum
	l := summarise(h)
	for _, c := range []struct {
		name      string
		got, want time.Duration
	}{
		{"p50", l.P50, 50 * time.Millisecond},
		{"p95", l.P95, 95 * time.Millisecond},
		{"p99", l.P99, 99 * time.Millisecond},
		{"max", l.Max, 10 * time.Minute},
	} {
		if d := c.got - c.want; d < -c.want/50 || d > c.want/50 {
			t.Errorf("%s = %v, want %v ±2%%", c.name, c.got, c.want)
		}
	}
	if (summarise(newHist()) != Latency{}) {
		t.Error("empty histogram has a latency")
	}
}

func TestRoundLat(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{123 * time.Nanosecond, "123ns"},
		{123456 * time.Nanosecond, "123µs"},
		{1234567 * time.Nanosecond, "1.23ms"},
		{12345678901 * time.Nanosecond, "12.3s"},
	} {
		if got := roundLat(tc.in).String(); got != tc.want {
			t.Errorf("roundLat(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// cancelOnWrite cancels a context when the first progress line arrives,
// i.e. between the insert and update phases.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(p []byte) (int, error) { c.cancel(); return len(p), nil }

func TestRunCancelledBetweenPhases(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, Config{URLs: []string{url}, Goroutines: 4, Records: 20, SelectRepeat: 100, ManyRepeat: 100,
		Table: "t", Progress: cancelOnWrite{cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "update phase") {
		t.Errorf("error %q does not name the update phase", err)
	}
}
