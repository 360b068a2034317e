package workload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// TestRampOffsets pins workload's ramp: worker i of n starts at i ×
// (ramp / n), linearly, and the workload profile orders paced terminals
// round-robin over warehouses, so the first warehouses' terminals do
// not all start first.
func TestRampOffsets(t *testing.T) {
	ramp := 60 * time.Second
	if got := rampOffset(0, 200, ramp); got != 0 {
		t.Errorf("worker 0 starts at %v", got)
	}
	if got := rampOffset(100, 200, ramp); got != 30*time.Second {
		t.Errorf("worker 100 of 200 starts at %v, want 30s", got)
	}
	if got := rampOffset(199, 200, ramp); got != 59700*time.Millisecond {
		t.Errorf("worker 199 of 200 starts at %v, want 59.7s", got)
	}
	if got := rampOffset(5, 10, 0); got != 0 {
		t.Errorf("no ramp: worker 5 starts at %v", got)
	}
	cfg := &tpcc.RunConfig{Ramp: ramp, Wait: 0} // no keying time: the offset alone
	p := &Profile{}
	// 3 warehouses, 30 terminals in plan order (w0 d1..d10, w1 ...):
	// terminal 10 (w1, d1) is the second to start, terminal 1 (w0, d2)
	// the fourth.
	step := int64(ramp / 30)
	for _, tc := range []struct{ i, rank int }{{0, 0}, {10, 1}, {20, 2}, {1, 3}, {29, 29}} {
		if got := p.FirstDue(nil, tc.i, 30, tpcc.NewOrderTxn, cfg); got != int64(tc.rank)*step {
			t.Errorf("terminal %d starts at %v, want rank %d (%v)", tc.i, time.Duration(got), tc.rank, time.Duration(int64(tc.rank)*step))
		}
	}
}

// wlGoldenText renders what the workload profile sends on dialect d,
// for the goldens of the statements CockroachDB would receive (it cannot
// run here); on PostgreSQL the same builders run for real.
func wlGoldenText(d tpcc.Dialect) string {
	var b strings.Builder
	s := wlStatementsFor(d)
	fmt.Fprintf(&b, "-- prepared on every connection at warm-up (%s)\n", d)
	for _, q := range wlPrepared(d) {
		fmt.Fprintf(&b, "%s: %s\n", q.name, q.sql)
	}
	lines := []wlLine{
		{item: 17, supply: 3, number: 2, quantity: 5, price: 12.5, dist: "distinfo-a"},
		{item: 4242, supply: 8, number: 1, quantity: 10, remote: true, price: 3.25, dist: "distinfo-b"},
	}
	ups := []wlStockUpdate{{quantity: 86, ytd: 5, orderCnt: 1, remoteCnt: 0}, {quantity: 12, ytd: 10, orderCnt: 2, remoteCnt: 1}}
	b.WriteString("-- New-Order: BEGIN; SAVEPOINT cockroach_restart; 5 prepared; then with values inline:\n")
	b.WriteString(wlNewOrderItemSQL(lines) + "\n")
	b.WriteString(wlNewOrderStockSQL(7, lines) + "\n")
	b.WriteString(wlNewOrderStockUpdateSQL(s, lines, ups) + "\n")
	b.WriteString(wlNewOrderLinesSQL(3001, 7, 3, lines) + "\n")
	b.WriteString("-- Delivery's batch statements:\n")
	orders := []wlPair{{1, 2101}, {4, 2107}}
	customers := []wlPair{{1, 55}, {4, 2999}}
	uo, uc, dn, ul := wlDeliverySQL(3, 6, "2020-11-30 12:00:00", orders, customers, map[int32]float64{1: 101.5, 4: 7})
	b.WriteString(uo + "\n" + uc + "\n" + dn + "\n" + ul + "\n")
	b.WriteString("-- transaction protocol:\n")
	fmt.Fprintf(&b, "BEGIN\nSAVEPOINT %[1]s\nRELEASE SAVEPOINT %[1]s\nCOMMIT\n", wlSavepoint)
	if d == tpcc.Cockroach {
		fmt.Fprintf(&b, "-- on 40001: ROLLBACK TO SAVEPOINT %s\n", wlSavepoint)
	} else {
		fmt.Fprintf(&b, "-- on 40001/40P01: ROLLBACK; BEGIN; SAVEPOINT %s\n", wlSavepoint)
	}
	return b.String()
}

// TestWorkloadStatementsGolden pins the exact statements of the workload
// profile on both dialects; the CockroachDB file is checked against
// v20.1's source by the rows of docs/fidelity/v20.1.md.
func TestWorkloadStatementsGolden(t *testing.T) {
	golden.Check(t, "wl_statements.cockroach.golden", []byte(wlGoldenText(tpcc.Cockroach)))
	golden.Check(t, "wl_statements.postgres.golden", []byte(wlGoldenText(tpcc.Postgres)))
	crdb := wlGoldenText(tpcc.Cockroach)
	for _, want := range []string{"crdb_internal.force_error('', 'unknown case')", "($1:::float)::decimal", "s_dist_07"} {
		if !strings.Contains(crdb, want) {
			t.Errorf("CockroachDB statements lack %q", want)
		}
	}
}

// TestWorkloadSavepointRetryOnPostgres shows why the profile restarts a
// PostgreSQL transaction instead of rolling back to the savepoint: after a
// serialization failure under repeatable read, ROLLBACK TO SAVEPOINT
// leaves the transaction's snapshot in place and the retried UPDATE fails
// again. Then it runs the profile's protocol against a forced conflict:
// one retry, committed, counted.
func TestWorkloadSavepointRetryOnPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	a, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	b, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	mustExec := func(c *pgx.Conn, sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(a, `CREATE TABLE district (d_w_id int, d_id int, d_next_o_id int, PRIMARY KEY (d_w_id, d_id))`)
	mustExec(a, `INSERT INTO district VALUES (0, 1, 3001)`)
	is40001 := func(err error) bool {
		var pg *pgconn.PgError
		return errors.As(err, &pg) && pg.Code == "40001"
	}
	const upd = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 0 AND d_id = 1`

	mustExec(a, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	mustExec(a, "SAVEPOINT "+wlSavepoint)
	mustExec(a, "SELECT d_next_o_id FROM district") // takes the snapshot
	mustExec(b, upd)
	if _, err := a.Exec(ctx, upd); !is40001(err) {
		t.Fatalf("conflicting update: %v, want 40001", err)
	}
	mustExec(a, "ROLLBACK TO SAVEPOINT "+wlSavepoint)
	if _, err := a.Exec(ctx, upd); !is40001(err) {
		t.Fatalf("update after ROLLBACK TO SAVEPOINT: %v, want 40001 again (same snapshot)", err)
	}
	mustExec(a, "ROLLBACK")

	// The profile's protocol: the first attempt reads, then b commits a
	// conflicting update; the attempt's UPDATE fails with 40001 and the
	// transaction restarts and commits.
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	p := &Profile{dialect: tpcc.Postgres}
	w := &worker{rwBegin: "BEGIN ISOLATION LEVEL repeatable read"}
	var attempts atomic.Int32
	var trips int
	retries, err := p.inTx(ctx, w, tpcc.PgxPool{Pool: pool}, tpcc.NewOrderTxn, func(tx *wlTx) error {
		var n int
		if err := tx.queryRow(`SELECT d_next_o_id FROM district WHERE d_w_id = 0 AND d_id = 1`, nil, &n); err != nil {
			return err
		}
		if attempts.Add(1) == 1 {
			mustExec(b, upd)
		}
		trips = tx.trips
		return tx.exec(upd)
	})
	if err != nil || retries != 1 || attempts.Load() != 2 {
		t.Fatalf("inTx: retries %d, attempts %d, err %v; want 1 retry, 2 attempts, no error", retries, attempts.Load(), err)
	}
	// BEGIN, SAVEPOINT, SELECT, UPDATE (40001), ROLLBACK, BEGIN,
	// SAVEPOINT, SELECT: the second attempt's SELECT is the 8th trip.
	if trips != 8 {
		t.Errorf("round trips before the second attempt's UPDATE = %d, want 8", trips)
	}
	var n int
	if err := a.QueryRow(ctx, `SELECT d_next_o_id FROM district`).Scan(&n); err != nil || n != 3004 {
		t.Fatalf("d_next_o_id = %d (%v), want 3004 (three committed increments)", n, err)
	}

	// With a limit of 0 retries asked (--txn-retries=false), the first
	// failure is final and says so.
	p.noRetry = true
	attempts.Store(0)
	_, err = p.inTx(ctx, w, tpcc.PgxPool{Pool: pool}, tpcc.NewOrderTxn, func(tx *wlTx) error {
		var n int
		if err := tx.queryRow(`SELECT d_next_o_id FROM district WHERE d_w_id = 0 AND d_id = 1`, nil, &n); err != nil {
			return err
		}
		if attempts.Add(1) == 1 {
			mustExec(b, upd)
		}
		return tx.exec(upd)
	})
	var ex *tpcc.RetriesExhaustedError
	if !errors.As(err, &ex) || attempts.Load() != 1 {
		t.Fatalf("no-retry: %v after %d attempts, want tpcc.RetriesExhaustedError after 1", err, attempts.Load())
	}
}

// tpmcTick is the part of a --ticks JSON line this test reads.
type tpmcTick struct {
	Kind      string  `json:"kind"`
	Phase     string  `json:"phase"`
	ElapsedS  float64 `json:"elapsed_s"`
	Terminals int64   `json:"terminals"`
}

// TestWorkloadProfileOnPostgres runs the workload profile for real: two
// warehouses, workload's 2 connections per warehouse, a 6 s ramp whose
// ticks show the 20 terminals joining linearly, then a contended no-wait
// run whose conflicts are retried under the savepoint protocol without
// an error; the database passes every consistency check afterwards.
func TestWorkloadProfileOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two warehouses into a real PostgreSQL")
	}
	url, _ := tpcctest.LoadWarehouses(t, 2, 1, pgtest.NoSync())

	// Each transaction's round trips, measured on a fresh database
	// (every district has undelivered orders): workload's statements one
	// round trip each, plus BEGIN, SAVEPOINT, RELEASE and COMMIT.
	t.Run("round trips", func(t *testing.T) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		parts, _ := tpcc.NewPartitions(2, 2, 1)
		p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
		w := rrWorker(t, p, url, 11, 2)
		seen := map[tpcc.TxnType]map[int64]bool{}
		for range 40 {
			for ty := range tpcc.NumTxnTypes {
				if _, err := p.exec(ctx, w, tpcc.PinnedConn{Conn: conn}, ty, tpcc.Home{W: 1, D: 1}); err != nil {
					t.Fatalf("%s: %v", ty, err)
				}
				if seen[ty] == nil {
					seen[ty] = map[int64]bool{}
				}
				seen[ty][p.trips[ty].Load()] = true
			}
		}
		// The profile's own count (TestWorkloadRoundTripsOnPostgres
		// measures the wire): wlRoundTrips.
		want := wlRoundTrips
		for ty, ns := range seen {
			for n := range ns {
				if !slices.Contains(want[ty], n) {
					t.Errorf("%s took %d round trips, want one of %v", ty, n, want[ty])
				}
			}
		}
		if !seen[tpcc.NewOrderTxn][15] || !seen[tpcc.PaymentTxn][8] || !seen[tpcc.PaymentTxn][9] {
			t.Errorf("round trips seen: %v; want New-Order's 15 and Payment's 8 and 9", seen)
		}
		tpcctest.CheckConsistent(t, url)
	})

	t.Run("ramp", func(t *testing.T) {
		var out, ticks bytes.Buffer
		cfg := tpcc.RunConfig{URLs: []string{url}, Warehouses: 2, Wait: 0.01, Ramp: 6 * time.Second, Duration: 3 * time.Second,
			Seed: 3, Profile: tpcc.ProfileWorkload, ChooseProfile: choose, Out: &out, Ticks: result.NewTickWriter(&ticks, result.TicksJSONLines)}
		res, err := tpcc.Run(context.Background(), cfg)
		t.Logf("output:\n%s", out.String())
		if err != nil {
			var ae *tpcc.AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("run: %v", err)
			}
		}
		if res.Profile != tpcc.ProfileWorkload {
			t.Errorf("profile = %q", res.Profile)
		}
		if res.Connections != 4 {
			t.Errorf("connections = %d, want 2 x 2 warehouses", res.Connections)
		}
		if !strings.Contains(out.String(), "Initializing 4 connections") || !strings.Contains(out.String(), "Profile workload") {
			t.Error("output does not name the profile and its 4 connections")
		}
		for ty := range tpcc.NumTxnTypes {
			if res.Errors[ty] != 0 {
				t.Errorf("%d %s errors", res.Errors[ty], ty)
			}
		}
		// Terminal i of 20 starts at i × 0.3 s and first submits after
		// its keying time (at most 0.18 s at wait 0.01): at a ramp tick
		// t seconds in, between t/0.3 - 0.6 and t/0.3 + 1 have joined;
		// one more either side for the tick's own timing, and two more
		// below for an executor busy when a terminal falls due (the
		// machine is shared). Started all at once, every tick would
		// show 20.
		var ramp []tpmcTick
		sc := bufio.NewScanner(&ticks)
		for sc.Scan() {
			var tk tpmcTick
			if err := json.Unmarshal(sc.Bytes(), &tk); err != nil {
				t.Fatal(err)
			}
			if tk.Kind == "tpmc" && tk.Phase == string(result.PhaseRamp) {
				ramp = append(ramp, tk)
			}
		}
		if len(ramp) < 4 {
			t.Fatalf("%d ramp ticks, want >= 4", len(ramp))
		}
		for i, tk := range ramp {
			if i > 0 && tk.Terminals < ramp[i-1].Terminals {
				t.Errorf("terminals went down from %d to %d", ramp[i-1].Terminals, tk.Terminals)
			}
			lo, hi := tk.ElapsedS/0.3-0.6-3, tk.ElapsedS/0.3+1+1
			t.Logf("ramp tick at %.2fs: %d terminals", tk.ElapsedS, tk.Terminals)
			if f := float64(tk.Terminals); f < lo || f > hi {
				t.Errorf("at %.2fs %d terminals joined, want within [%.1f, %.1f] (linear over 6 s)", tk.ElapsedS, tk.Terminals, lo, hi)
			}
		}
		if last := ramp[len(ramp)-1]; last.Terminals >= 20 && last.ElapsedS < 5 {
			t.Errorf("all terminals joined by %.2fs of a 6 s ramp", last.ElapsedS)
		}
		tpcctest.CheckConsistent(t, url)
	})

	t.Run("retries", func(t *testing.T) {
		var out bytes.Buffer
		cfg := tpcc.RunConfig{URLs: []string{url}, Warehouses: 2, ActiveWarehouses: 1, Wait: 0, Workers: 6, Duration: 4 * time.Second,
			Seed: 5, Profile: tpcc.ProfileWorkload, ChooseProfile: choose, Out: &out}
		res, err := tpcc.Run(context.Background(), cfg)
		t.Logf("output:\n%s", out.String())
		if err != nil {
			var ae *tpcc.AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("run: %v", err)
			}
		}
		var retries int64
		for ty := range tpcc.NumTxnTypes {
			retries += res.Retries[ty]
			if res.Errors[ty] != 0 {
				t.Errorf("%d %s errors", res.Errors[ty], ty)
			}
			if res.Counts[ty] == 0 {
				t.Errorf("no %s completed", ty)
			}
		}
		if retries == 0 {
			t.Error("six no-wait workers on one warehouse under repeatable read: no conflict retried")
		}
		if res.Connections != 6 {
			t.Errorf("connections = %d, want --workers (6) in no-wait mode", res.Connections)
		}
		// workload's per-host efficiency divides by all active warehouses.
		if want := 100 * res.TpmC / (12.86 * 1); res.WorkloadEfficiency != want {
			t.Errorf("workload efficiency = %v, want %v", res.WorkloadEfficiency, want)
		}
		tpcctest.CheckConsistent(t, url)
	})
}

// TestActiveSet: the indexed set of active warehouses is the list of every
// partition's active range in partition order, warehouse by warehouse.
func TestActiveSet(t *testing.T) {
	for _, c := range []struct{ w, active, parts int }{{10, 10, 1}, {100, 80, 3}, {27, 27, 27}, {1000, 999, 7}} {
		p, err := tpcc.NewPartitions(c.w, c.active, c.parts)
		if err != nil {
			t.Fatal(err)
		}
		var want []int32
		for i := range p.Count {
			lo, hi := p.ActiveRange(i)
			for w := lo; w <= hi; w++ {
				want = append(want, int32(w))
			}
		}
		s := newActiveSet(p)
		if s.len() != len(want) {
			t.Fatalf("%+v: len %d, want %d", c, s.len(), len(want))
		}
		for k, w := range want {
			if got := s.at(k); got != w {
				t.Fatalf("%+v: at(%d) = %d, want %d", c, k, got, w)
			}
		}
	}
}

// choose is a tpcc.ChooseProfile of this package's profile alone (the
// composition point, tpcc/profile, imports this package).
func choose(_ tpcc.Profile, d tpcc.Dialect, cfg *tpcc.RunConfig, parts tpcc.Partitions) (tpcc.LoadProfile, error) {
	return New(d, cfg, parts), nil
}

// TestStockUpdateCoversEveryRow: New-Order's stock UPDATE names, in each
// of its four CASEs, every (s_i_id, s_w_id) its WHERE selects, so the
// ELSE that CockroachDB's statement guards with force_error is never
// reached and PostgreSQL's statement, which has no ELSE, writes no NULL
// (s_quantity is nullable in workload's schema and benchrig's: nothing
// else would stop one; row D9).
func TestStockUpdateCoversEveryRow(t *testing.T) {
	lines := []wlLine{{item: 7, supply: 0}, {item: 19, supply: 3}, {item: 4, supply: 0}}
	ups := []wlStockUpdate{{10, 1, 1, 0}, {20, 2, 1, 1}, {30, 3, 1, 0}}
	for _, d := range []tpcc.Dialect{tpcc.Postgres, tpcc.Cockroach} {
		q := wlNewOrderStockUpdateSQL(wlStatementsFor(d), lines, ups)
		set, where, ok := strings.Cut(q, " WHERE ")
		if !ok {
			t.Fatalf("%s: no WHERE: %s", d, q)
		}
		cases := strings.Split(set, " END")
		cases = cases[:len(cases)-1]
		if len(cases) != 4 {
			t.Fatalf("%s: %d CASEs: %s", d, len(cases), q)
		}
		for _, k := range wlStockKeys(lines) {
			if !strings.Contains(where, k) {
				t.Errorf("%s: WHERE lacks %s", d, k)
			}
			for i, c := range cases {
				if !strings.Contains(c, "WHEN "+k+" THEN") {
					t.Errorf("%s: CASE %d lacks %s: %s", d, i, k, c)
				}
			}
		}
	}
	ddl, err := tpcc.TableSchema(tpcc.Postgres, tpcc.Version21, "stock")
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range strings.Split(ddl, ",") {
		if f := strings.Fields(col); len(f) > 0 && f[0] == "s_quantity" && strings.Contains(strings.ToLower(col), "not null") {
			t.Errorf("s_quantity is NOT NULL (%q): row D9's aside says nullable", col)
		}
	}
}
