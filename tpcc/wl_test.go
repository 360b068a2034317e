package tpcc

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

	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestWorkloadConstants pins workload's NURand constants for its default
// seed and two others, and the first outputs of its PCG stream: values
// computed independently (128-bit integers, docs/fidelity/v20.1.md) from
// x/exp/rand's algorithm.
func TestWorkloadConstants(t *testing.T) {
	p := newXPCG(1)
	for i, want := range []uint64{3812638179211989351, 9330348978533091121, 10626674221466475072} {
		if got := p.uint64(); got != want {
			t.Fatalf("output %d of seed 1 = %d, want %d", i, got, want)
		}
	}
	for _, tc := range []struct {
		seed uint64
		want Constants
	}{
		{1, Constants{CLast: 103, OLIID: 817, CID: 6720}},
		{42, Constants{CLast: 26, OLIID: 326, CID: 5436}},
		{7, Constants{CLast: 189, OLIID: 534, CID: 2061}},
	} {
		if got := WorkloadConstants(tc.seed); got != tc.want {
			t.Errorf("WorkloadConstants(%d) = %v, want %v", tc.seed, got, tc.want)
		}
	}
}

// TestXPCGIntnRejects checks intn's rejection path: for n just above
// 2^63 about half the draws are at or above the ceiling and must be drawn
// again; the results stay below n.
func TestXPCGIntnRejects(t *testing.T) {
	p := newXPCG(3)
	n := 1<<62 + 1
	for range 1000 {
		if v := p.intn(n); v < 0 || v >= n {
			t.Fatalf("intn(%d) = %d", n, v)
		}
	}
	if v := p.intn(1 << 10); v >= 1<<10 {
		t.Fatalf("intn(1024) = %d", v)
	}
}

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
	cfg := &RunConfig{Ramp: ramp, Wait: 0} // no keying time: the offset alone
	p := &workloadProfile{}
	// 3 warehouses, 30 terminals in plan order (w0 d1..d10, w1 ...):
	// terminal 10 (w1, d1) is the second to start, terminal 1 (w0, d2)
	// the fourth.
	step := int64(ramp / 30)
	for _, tc := range []struct{ i, rank int }{{0, 0}, {10, 1}, {20, 2}, {1, 3}, {29, 29}} {
		if got := p.firstDue(nil, tc.i, 30, NewOrderTxn, cfg); got != int64(tc.rank)*step {
			t.Errorf("terminal %d starts at %v, want rank %d (%v)", tc.i, time.Duration(got), tc.rank, time.Duration(int64(tc.rank)*step))
		}
	}
}

// TestWorkloadConns pins workload's connection count: 2 per active
// warehouse of the whole run on every host, whatever its affinity; the
// pipelined profile keeps one per 40 of this host's terminals.
func TestWorkloadConns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     RunConfig
		conns   int
		profile Profile
	}{
		{"workload 100k host of 5", RunConfig{Warehouses: 100000, Partitions: 27, Affinity: []int{0, 5, 10, 15, 20, 25}, Wait: 1, URLs: make([]string, 15)}, 200010, ProfileWorkload},
		{"pipelined 100k host of 5", RunConfig{Warehouses: 100000, Partitions: 27, Affinity: []int{0, 5, 10, 15, 20, 25}, Wait: 1, URLs: make([]string, 15)}, 5565, ProfilePipelined},
		{"workload active", RunConfig{Warehouses: 10, ActiveWarehouses: 4, Wait: 1, URLs: make([]string, 3)}, 9, ProfileWorkload},
		{"workload no-wait", RunConfig{Warehouses: 10, Wait: 0, URLs: make([]string, 1)}, 100, ProfileWorkload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Profile = tc.profile
			n, err := RunNeeds(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n.Conns != tc.conns {
				t.Errorf("conns = %d, want %d", n.Conns, tc.conns)
			}
		})
	}
}

func TestParseProfile(t *testing.T) {
	for _, s := range []string{"", "workload", "pipelined", "functions"} {
		if p, err := ParseProfile(s); err != nil || string(p) != s {
			t.Errorf("ParseProfile(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParseProfile("fast"); err == nil {
		t.Error("ParseProfile(fast) accepted")
	}
	if DefaultProfile(Cockroach) != ProfileWorkload || DefaultProfile(Postgres) != ProfilePipelined {
		t.Error("default profiles: want workload on CockroachDB, pipelined on PostgreSQL")
	}
}

// wlGoldenText renders what the workload profile sends on dialect d,
// for the goldens of the statements CockroachDB would receive (it cannot
// run here); on PostgreSQL the same builders run for real.
func wlGoldenText(d Dialect) string {
	var b strings.Builder
	s := wlStatementsFor(d)
	fmt.Fprintf(&b, "-- prepared on every connection at warm-up (%s)\n", d)
	for _, q := range wlPrepared(d) {
		b.WriteString(q + "\n")
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
	if d == Cockroach {
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
	golden(t, "wl_statements.cockroach", wlGoldenText(Cockroach))
	golden(t, "wl_statements.postgres", wlGoldenText(Postgres))
	crdb := wlGoldenText(Cockroach)
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
	if err := pgtest.Available(); err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
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
	p := &workloadProfile{dialect: Postgres}
	w := &worker{rwBegin: "BEGIN ISOLATION LEVEL repeatable read"}
	var attempts atomic.Int32
	var trips int
	retries, err := p.inTx(ctx, w, pgxPool{pool}, NewOrderTxn, func(tx *wlTx) error {
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
	_, err = p.inTx(ctx, w, pgxPool{pool}, NewOrderTxn, func(tx *wlTx) error {
		var n int
		if err := tx.queryRow(`SELECT d_next_o_id FROM district WHERE d_w_id = 0 AND d_id = 1`, nil, &n); err != nil {
			return err
		}
		if attempts.Add(1) == 1 {
			mustExec(b, upd)
		}
		return tx.exec(upd)
	})
	var ex *RetriesExhaustedError
	if !errors.As(err, &ex) || attempts.Load() != 1 {
		t.Fatalf("no-retry: %v after %d attempts, want RetriesExhaustedError after 1", err, attempts.Load())
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
	url, _ := loadWarehouses(t, 2, 1, pgtest.NoSync())

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
		parts, _ := NewPartitions(2, 2, 1)
		p := newProfile(ProfileWorkload, Postgres, &RunConfig{}, parts).(*workloadProfile)
		var cnt atomic.Pointer[counters]
		cnt.Store(newCounters(2))
		m, _, err := DatabaseMeta(ctx, conn, 0)
		if err != nil {
			t.Fatal(err)
		}
		rw := pgx.TxOptions{IsoLevel: pgx.RepeatableRead}
		w := newWorker(NewRand(11, 1), p.runConstants(nil, m), 2, RetryPolicy{}, rw, rw, &cnt)
		seen := map[TxnType]map[int64]bool{}
		for range 40 {
			for ty := range numTxnTypes {
				if _, err := p.exec(ctx, w, pinnedConn{conn}, ty, warehouseDistrict{wID: 1, dID: 1}); err != nil {
					t.Fatalf("%s: %v", ty, err)
				}
				if seen[ty] == nil {
					seen[ty] = map[int64]bool{}
				}
				seen[ty][p.trips[ty].Load()] = true
			}
		}
		// The profile's own count (TestWorkloadRoundTripsOnPostgres
		// measures the wire): New-Order 9 statements, the item and stock
		// SELECTs 2 round trips each, + 4 = 15 (a 1% rollback: 3
		// statements and the item SELECT's 2, then ROLLBACK: 8); Payment
		// 8, or 9 by last name; Order-Status 7; Delivery 10 × 2 + 5 + 4 =
		// 29 while every district has an undelivered order; Stock-Level 6.
		want := map[TxnType][]int64{NewOrderTxn: {15, 8}, PaymentTxn: {8, 9}, OrderStatusTxn: {7}, DeliveryTxn: {29}, StockLevelTxn: {6}}
		for ty, ns := range seen {
			for n := range ns {
				if !slices.Contains(want[ty], n) {
					t.Errorf("%s took %d round trips, want one of %v", ty, n, want[ty])
				}
			}
		}
		if !seen[NewOrderTxn][15] || !seen[PaymentTxn][8] || !seen[PaymentTxn][9] {
			t.Errorf("round trips seen: %v; want New-Order's 15 and Payment's 8 and 9", seen)
		}
		checkConsistent(t, url)
	})

	t.Run("ramp", func(t *testing.T) {
		var out, ticks bytes.Buffer
		cfg := RunConfig{URLs: []string{url}, Warehouses: 2, Wait: 0.01, Ramp: 6 * time.Second, Duration: 3 * time.Second,
			Seed: 3, Profile: ProfileWorkload, Out: &out, Ticks: result.NewTickWriter(&ticks, result.TicksJSONLines)}
		res, err := Run(context.Background(), cfg)
		t.Logf("output:\n%s", out.String())
		if err != nil {
			var ae *AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("run: %v", err)
			}
		}
		if res.Profile != ProfileWorkload {
			t.Errorf("profile = %q", res.Profile)
		}
		if res.Connections != 4 {
			t.Errorf("connections = %d, want 2 x 2 warehouses", res.Connections)
		}
		if !strings.Contains(out.String(), "Initializing 4 connections") || !strings.Contains(out.String(), "Profile workload") {
			t.Error("output does not name the profile and its 4 connections")
		}
		for ty := range numTxnTypes {
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
		checkConsistent(t, url)
	})

	t.Run("retries", func(t *testing.T) {
		var out bytes.Buffer
		cfg := RunConfig{URLs: []string{url}, Warehouses: 2, ActiveWarehouses: 1, Wait: 0, Workers: 6, Duration: 4 * time.Second,
			Seed: 5, Profile: ProfileWorkload, Out: &out}
		res, err := Run(context.Background(), cfg)
		t.Logf("output:\n%s", out.String())
		if err != nil {
			var ae *AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("run: %v", err)
			}
		}
		var retries int64
		for ty := range numTxnTypes {
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
		checkConsistent(t, url)
	})
}

// TestResultNamesProfile: the result JSON and the report name the profile
// that ran, its connections and workload's per-host efc (over all active
// warehouses of the run) beside benchrig's (over this host's); the
// document matches the schema.
func TestResultNamesProfile(t *testing.T) {
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			res := fixedResult(t)
			res.Profile, res.Connections, res.AllActive = p, 2010, 1000
			res.WorkloadEfficiency = 100 * res.TpmC / (12.86 * 1000)
			cfg := RunConfig{Warehouses: 1000, Partitions: 5, Affinity: []int{1}, Ramp: time.Minute, Duration: 30 * time.Minute, Wait: 1}
			r := NewResult(cfg, res, nil)
			if r.Profile != string(p) || r.Connections != 2010 || r.WorkloadEfficiency == nil || *r.WorkloadEfficiency != res.WorkloadEfficiency {
				t.Errorf("profile %q, connections %d, workload efficiency %v", r.Profile, r.Connections, r.WorkloadEfficiency)
			}
			doc, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, doc)
			rep := formatFinal(res)
			if !strings.Contains(rep, "Profile "+string(p)+", 2010 connections") || !strings.Contains(rep, "over all 1000 of the run (workload's per-host efc)") {
				t.Errorf("report does not name the profile and workload's efc:\n%s", rep)
			}
		})
	}
}

// TestActiveSet: the indexed set of active warehouses is the list of every
// partition's active range in partition order, warehouse by warehouse.
func TestActiveSet(t *testing.T) {
	for _, c := range []struct{ w, active, parts int }{{10, 10, 1}, {100, 80, 3}, {27, 27, 27}, {1000, 999, 7}} {
		p, err := NewPartitions(c.w, c.active, c.parts)
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
