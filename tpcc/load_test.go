package tpcc

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// initDB creates a fresh database on s with the schema for w warehouses.
func initDB(t testing.TB, s *pgtest.Server, w, parts int, seed uint64) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	url := s.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if err := Init(ctx, conn, InitOptions{Warehouses: w, Seed: seed, Partitions: parts}); err != nil {
		t.Fatal(err)
	}
	return url, conn
}

func count(t testing.TB, conn *pgx.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// wantCounts checks every table's cardinality against clause 4.3.3.1 for
// w loaded warehouses, and order_line against sum(o_ol_cnt).
func wantCounts(t testing.TB, conn *pgx.Conn, w int64) {
	t.Helper()
	for _, tc := range []struct {
		table string
		n     int64
	}{
		{"item", 100000}, {"warehouse", w}, {"district", 10 * w}, {"customer", 30000 * w},
		{"history", 30000 * w}, {`"order"`, 30000 * w}, {"new_order", 9000 * w}, {"stock", 100000 * w},
	} {
		if got := count(t, conn, "SELECT count(*) FROM "+tc.table); got != tc.n {
			t.Errorf("%s: %d rows, want %d", tc.table, got, tc.n)
		}
	}
	ol := count(t, conn, "SELECT count(*) FROM order_line")
	sum := count(t, conn, `SELECT sum(o_ol_cnt) FROM "order"`)
	if ol != sum || ol < 5*30000*w || ol > 15*30000*w {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) = %d", ol, sum)
	}
	// The mean O_OL_CNT is 10: 300,000 per warehouse within 1%.
	if ol < 297000*w || ol > 303000*w {
		t.Errorf("order_line: %d rows, want about %d", ol, 300000*w)
	}
}

func checkAll(t testing.TB, conn *pgx.Conn) string {
	t.Helper()
	var out bytes.Buffer
	res, err := Check(context.Background(), conn, CheckOptions{Expensive: true, Out: &out})
	if err != nil {
		t.Fatalf("check after load: %v\n%s", err, out.String())
	}
	if len(res) != 13 || res[0].Condition.Number != 0 {
		t.Fatalf("%d conditions checked, want the population and 12", len(res))
	}
	for _, r := range res {
		if r.Verdict != Pass {
			t.Errorf("%s", r)
		}
	}
	return out.String()
}

func TestLoadAndCheck(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	url, conn := initDB(t, s, 2, 1, 42)
	var progress bytes.Buffer
	st, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2, Progress: &progress, FKs: true})
	if err != nil {
		t.Fatal(err)
	}
	wantForeignKeys(t, conn)
	if st.Loaded != 2 || !st.Items || st.Skipped != 0 {
		t.Errorf("stats %+v, want 2 warehouses and items loaded", st)
	}
	if got := count(t, conn, "SELECT count(*) FROM benchrig_loaded"); got != 3 {
		t.Errorf("%d markers, want 3 (items + 2 warehouses)", got)
	}
	wantCounts(t, conn, 2)
	out := checkAll(t, conn)
	for n := 0; n <= 12; n++ {
		if !strings.Contains(out, "check "+itoa(n)+" ") {
			t.Errorf("condition %d not reported by name:\n%s", n, out)
		}
	}
	if !strings.Contains(progress.String(), "load: ANALYZE") || count(t, conn, "SELECT count(*) FROM pg_stat_user_tables WHERE relname = 'customer' AND last_analyze IS NOT NULL") != 1 {
		t.Errorf("the load that completed the population did not ANALYZE:\n%s", progress.String())
	}
	if !strings.Contains(progress.String(), "2/2 warehouses") || !strings.Contains(progress.String(), "rows/s") {
		t.Errorf("progress output %q lacks warehouses done/total and rows/s", progress.String())
	}
	checkPlainProgress(t, progress.String(), "load: 2/2 warehouses, ")
	// C-Load is stored and is the one the rows were drawn with.
	c, err := ReadConstants(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if c != MetaForSeed(42, 2, 1).Load {
		t.Errorf("stored constants %v, want those of seed 42", c)
	}
	// A second load is a no-op.
	st, err = Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Loaded != 0 || st.Items || st.Skipped != 2 || st.Rows != 0 {
		t.Errorf("reload stats %+v, want nothing loaded, 2 skipped", st)
	}
	wantCounts(t, conn, 2)
	// Adding the keys again is a no-op (recognised whatever their names).
	if err := AddForeignKeys(ctx, conn, Postgres); err != nil {
		t.Fatal(err)
	}
	wantForeignKeys(t, conn)
	// They hold: a row they forbid is refused.
	if _, err := conn.Exec(ctx, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (9999, 1, 0)"); err == nil {
		t.Error("a new_order row without its order was accepted")
	}
}

// wantForeignKeys checks that the ten foreign keys exist, each once, and
// are validated (pg_constraint.convalidated).
func wantForeignKeys(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT c.conrelid::regclass::text || ' -> ' || c.confrelid::regclass::text, c.convalidated
FROM pg_constraint c WHERE c.contype = 'f' AND c.conparentid = 0 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type fk struct {
		Pair  string
		Valid bool
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fk])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"order" -> customer`, "customer -> district", "district -> warehouse", "history -> customer", "history -> district",
		`new_order -> "order"`, `order_line -> "order"`, "order_line -> stock", "stock -> item", "stock -> warehouse"}
	var pairs []string
	for _, g := range got {
		pairs = append(pairs, g.Pair)
		if !g.Valid {
			t.Errorf("foreign key %s is not validated", g.Pair)
		}
	}
	if strings.Join(pairs, ", ") != strings.Join(want, ", ") {
		t.Errorf("foreign keys:\n%s\nwant:\n%s", strings.Join(pairs, ", "), strings.Join(want, ", "))
	}
}

func itoa(n int) string { return string(appendInt(nil, n)) }

// TestLoadInterruptedResumed cancels a load as soon as the first
// warehouse commits, while the other is mid-COPY, then resumes it: whole
// warehouses or nothing, and the resumed load fills exactly the rest,
// with the same rows as loading in one go with several loaders.
func TestLoadInterruptedResumed(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	url, conn := initDB(t, s, 2, 1, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	var first atomic.Bool
	st, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2, Now: testNow,
		// The first warehouse to finish commits and cancels; one that
		// finishes its COPY before the cancellation waits for it, so that
		// its COMMIT is refused before it is sent rather than racing the
		// cancellation (CI saw "2 markers, stats say 1" that way). The
		// wait is bounded: should the first never commit, the test fails
		// on its counts instead of hanging.
		beforeCommit: func(w int) {
			if w != itemsUnit && !first.CompareAndSwap(false, true) {
				select {
				case <-ctx.Done():
				case <-time.After(2 * time.Minute):
				}
			}
		},
		afterCommit: func(w int) {
			if w != itemsUnit {
				once.Do(cancel)
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted load: err = %v, want context.Canceled", err)
	}
	if st.Loaded != 1 {
		t.Fatalf("interrupted load committed %d warehouses, want 1 (the test must interrupt mid-load)", st.Loaded)
	}
	loaded := count(t, conn, "SELECT count(*) FROM benchrig_loaded WHERE w_id >= 0")
	if loaded != int64(st.Loaded) {
		t.Errorf("%d markers, stats say %d", loaded, st.Loaded)
	}
	// Exactly the marked warehouses have rows.
	if got := count(t, conn, "SELECT count(DISTINCT s_w_id) FROM stock"); got != loaded {
		t.Errorf("stock has rows of %d warehouses, %d are marked loaded", got, loaded)
	}
	if got := count(t, conn, "SELECT count(*) FROM customer"); got != 30000*loaded {
		t.Errorf("customer: %d rows after interruption, want %d", got, 30000*loaded)
	}
	// check notices the missing warehouse even though clause 3.3.2's
	// conditions hold on the loaded one.
	var out bytes.Buffer
	res, err := Check(context.Background(), conn, CheckOptions{Out: &out})
	if !IsViolation(err) || res[0].Verdict != Fail || res[0].Violations != 1 {
		t.Errorf("check on a half-loaded database: %v\n%s", err, out.String())
	}
	for _, r := range res[1:] {
		if r.Verdict != Pass {
			t.Errorf("half-loaded: %s", r)
		}
	}
	st2, err := Load(context.Background(), URLConnector([]string{url}), LoadOptions{Concurrency: 2, Now: testNow})
	if err != nil {
		t.Fatal(err)
	}
	if st2.Loaded != 1 || st2.Skipped != 1 || st2.Items {
		t.Errorf("resumed load %+v, want the one missing warehouse (items were committed)", st2)
	}
	wantCounts(t, conn, 2)
	checkAll(t, conn)

	// Determinism: the same seed and timestamp loaded in one go by three
	// concurrent loaders into partitioned tables holds the same rows as
	// this interrupted-and-resumed load.
	want := digest(t, conn)
	if got := loadParallelRanges(t, s, 5); got != want {
		t.Errorf("loads of seed 5 differ:\ninterrupted+resumed: %s\nparallel ranges:     %s", want, got)
	}
}

// loadParallelRanges runs two loaders on one new database with disjoint
// --from/--to (as two workload hosts would), plus an overlapping third,
// all at once, checks the result is one complete population, and returns
// its digest.
func loadParallelRanges(t *testing.T, s *pgtest.Server, seed uint64) string {
	t.Helper()
	url, conn := initDB(t, s, 2, 2, seed) // PostgreSQL partitioned by warehouse
	ctx := context.Background()
	var wg sync.WaitGroup
	stats := make([]LoadStats, 3)
	errs := make([]error, 3)
	for i, r := range [][2]int{{0, 1}, {1, 2}, {0, 2}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stats[i], errs[i] = Load(ctx, URLConnector([]string{url}), LoadOptions{From: r[0], To: r[1], Concurrency: 2, Now: testNow, FKs: true})
		}()
	}
	wg.Wait()
	total := 0
	items := 0
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("loader %d: %v", i, errs[i])
		}
		total += stats[i].Loaded
		if stats[i].Items {
			items++
		}
	}
	if total != 2 || items != 1 {
		t.Errorf("loaders loaded %d warehouses and items %d times, want 2 and 1: %+v", total, items, stats)
	}
	wantCounts(t, conn, 2)
	checkAll(t, conn)
	// Partitioned tables take no NOT VALID key before PostgreSQL 18: they
	// got validated ones.
	wantForeignKeys(t, conn)
	// Rows went to the warehouse's partition.
	if got := count(t, conn, "SELECT count(*) FROM stock_p1 WHERE s_w_id = 1"); got != 100000 {
		t.Errorf("stock_p1 holds %d rows of warehouse 1, want 100000", got)
	}
	return digest(t, conn)
}

// digest is an order-independent hash of every table's rows, equal for
// two databases holding the same data however it was loaded.
func digest(t testing.TB, conn *pgx.Conn) string {
	t.Helper()
	var parts []string
	for _, tb := range schemaTables() {
		var h string
		// The loaded columns: history's rowid is a random DEFAULT.
		row := "ROW(" + strings.Join(tb.columnNames(), ", ") + ")::text"
		q := "SELECT count(*) || ':' || coalesce(sum(hashtext(" + row + ")::bigint), 0) FROM " + tb.Name
		if err := conn.QueryRow(context.Background(), q).Scan(&h); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, tb.Name+"="+h)
	}
	return strings.Join(parts, " ")
}

func TestLoadValidation(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	url := s.NewDatabase(t)
	if _, err := Load(ctx, URLConnector([]string{url}), LoadOptions{}); !errors.Is(err, ErrNoMeta) {
		t.Errorf("load before init: %v, want ErrNoMeta", err)
	}
	url, conn := initDB(t, s, 2, 1, 1)
	seed := uint64(2)
	for _, o := range []LoadOptions{
		{Warehouses: 3}, {From: 1, To: 3}, {From: 1, To: 1}, {From: -1}, {Seed: &seed},
	} {
		if _, err := Load(ctx, URLConnector([]string{url}), o); err == nil {
			t.Errorf("Load(%+v) on a 2-warehouse seed-1 database succeeded", o)
		}
	}
	// Init is idempotent with equal flags, refuses different ones.
	if err := Init(ctx, conn, InitOptions{Warehouses: 2, Seed: 1}); err != nil {
		t.Errorf("re-init: %v", err)
	}
	if err := Init(ctx, conn, InitOptions{Warehouses: 5, Seed: 1}); err == nil {
		t.Error("init with another warehouse count over existing metadata succeeded")
	}
	if err := Init(ctx, conn, InitOptions{Warehouses: 5, Seed: 1, Drop: true}); err != nil {
		t.Errorf("init --drop: %v", err)
	}
}

// TestLoadCockroachUnit runs the unit CockroachDB uses (no transaction
// around a warehouse: clear leftovers, COPY, then mark) against
// PostgreSQL, which executes the same statements: a warehouse whose load
// died half-way is cleared and reloaded, never duplicated.
func TestLoadCockroachUnit(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	url, conn := initDB(t, s, 1, 1, 13)
	ctx := context.Background()
	// A load that died after copying part of warehouse 0: leftover rows,
	// no marker.
	jobs := warehouseJobs(13, 0, MetaForSeed(13, 1, 1).Load.CLast, loadTimestamp(testNow))
	for _, j := range jobs[:3] { // warehouse, stock, district
		if _, err := conn.PgConn().CopyFrom(ctx, newCopyReader(j.gen, nil), j.table.copySQL()); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Dialect: Cockroach, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Loaded != 1 || !st.Items {
		t.Errorf("stats %+v, want 1 warehouse and items", st)
	}
	wantCounts(t, conn, 1)
	checkAll(t, conn)
}

// TestInitFillFactorOnPostgres: the fillfactor reaches PostgreSQL's
// catalogue for the six tables updated in place and their partitions, and
// nowhere else; a load then leaves the free space (stock, loaded at 80,
// takes over 1/0.8 of the pages it takes at 100).
func TestInitFillFactorOnPostgres(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	pages := map[int]int64{}
	for _, ff := range []int{0, 80} {
		url := s.NewDatabase(t)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if err := Init(ctx, conn, InitOptions{Warehouses: 2, Seed: 1, Partitions: 2, Dialect: Postgres, FillFactor: ff}); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, `SELECT relname, coalesce(array_to_string(reloptions, ','), '') FROM pg_class
WHERE relkind IN ('r', 'p') AND relnamespace = 'public'::regnamespace AND relname NOT LIKE 'benchrig%' ORDER BY relname`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for rows.Next() {
			var name, opts string
			if err := rows.Scan(&name, &opts); err != nil {
				t.Fatal(err)
			}
			got[name] = opts
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		for name, opts := range got {
			base := strings.TrimSuffix(strings.TrimSuffix(name, "_p0"), "_p1")
			want := ""
			if ff != 0 && base != name && slices.Contains([]string{"warehouse", "district", "customer", "stock", "order", "order_line"}, base) {
				want = "fillfactor=80"
			}
			if opts != want {
				t.Errorf("fillfactor %d: %s has reloptions %q, want %q", ff, name, opts, want)
			}
		}
		if _, err := Load(ctx, URLConnector([]string{url}), LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := conn.QueryRow(ctx, `SELECT sum(pg_relation_size(c.oid) / 8192) FROM pg_class c WHERE c.relname IN ('stock_p0', 'stock_p1')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		pages[ff] = n
	}
	if float64(pages[80]) < float64(pages[0])/0.8*0.98 {
		t.Errorf("stock takes %d pages at fillfactor 80 and %d at 100: the load left no free space", pages[80], pages[0])
	}
}

// initFillFactor85 is a connection to a new database on a real server
// (no fsync) with the schema of one warehouse at fillfactor 85, no rows.
func initFillFactor85(ctx context.Context, t *testing.T) *pgx.Conn {
	t.Helper()
	s := pgtest.Start(t, pgtest.NoSync())
	conn, err := pgx.Connect(ctx, s.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if err := Init(ctx, conn, InitOptions{Warehouses: 1, Seed: 1, Partitions: 1, Dialect: Postgres, FillFactor: 85}); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestStockUpdateWAL: New-Order's update of a stock row's four counters
// logs little WAL on PostgreSQL because the counters are adjacent in the
// table (stockPgOrder): the same update of the same row in workload's
// column order, where the ten s_dist columns lie between s_quantity and
// the other three, logs those 240 bytes too. Measured on a real server,
// the second update of a row (the first after a checkpoint carries the
// page's image), which stays on its page (fillfactor 85).
func TestStockUpdateWAL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := initFillFactor85(ctx, t)
	st, _ := TableByName("stock")
	if _, err := conn.Exec(ctx, "CREATE TABLE stock_workload_order ("+strings.Join(st.columns, ", ")+", PRIMARY KEY (s_w_id, s_i_id)) WITH (fillfactor = 85)"); err != nil {
		t.Fatal(err)
	}
	cols := strings.Join(st.columnNames(), ", ")
	wal := map[string]int64{}
	for _, table := range []string{"stock", "stock_workload_order"} {
		if _, err := conn.Exec(ctx, "INSERT INTO "+table+" ("+cols+") VALUES (7, 0, 50, "+
			strings.Repeat("repeat('d', 24), ", 10)+"0, 0, 0, repeat('x', 40))"); err != nil {
			t.Fatal(err)
		}
		upd := "UPDATE " + table + " SET s_quantity = s_quantity - 5, s_ytd = s_ytd + 5, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + 1 WHERE s_w_id = 0 AND s_i_id = 7"
		if _, err := conn.Exec(ctx, upd); err != nil { // the page's first change: its image
			t.Fatal(err)
		}
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var before, after string
		if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&before); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, upd); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&after); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := tx.QueryRow(ctx, "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::int8", after, before).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		wal[table] = n
	}
	t.Logf("WAL of one stock update: %d bytes in stockPgOrder, %d in workload's order", wal["stock"], wal["stock_workload_order"])
	if wal["stock"] <= 0 || wal["stock"]*2 > wal["stock_workload_order"] {
		t.Errorf("one stock update logged %d bytes of WAL, in workload's order %d; want under half", wal["stock"], wal["stock_workload_order"])
	}
}

// TestDeliveryOrderUpdateIsHOT: Delivery's update of an order's carrier
// (clause 2.7.4.2) stays on the order's page as a HOT update on
// PostgreSQL, which it cannot if any index holds o_carrier_id (index.pg:
// workload's order_idx stores it). Counted by the server for the
// transaction's own updates, on a real server at fillfactor 85.
func TestDeliveryOrderUpdateIsHOT(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := initFillFactor85(ctx, t)
	const orders = 20
	if _, err := conn.Exec(ctx, `INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
SELECT g, 1, 0, g, now(), NULL, 10, 1 FROM generate_series(1, $1) AS g`, orders); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for o := 1; o <= orders; o++ {
		if _, err := tx.Exec(ctx, `UPDATE "order" SET o_carrier_id = 7 WHERE o_w_id = 0 AND o_d_id = 1 AND o_id = $1`, o); err != nil {
			t.Fatal(err)
		}
	}
	var upd, hot int64
	if err := tx.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'order'`).Scan(&upd, &hot); err != nil {
		t.Fatal(err)
	}
	if upd != orders || hot != orders {
		t.Errorf("%d orders' carriers set: %d updates counted, %d of them HOT; want all HOT", orders, upd, hot)
	}
}
