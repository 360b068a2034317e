package workload

import (
	"context"
	"errors"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// TestWorkloadRoundTripsOnPostgres measures the workload profile's round
// trips on the wire, not by counting calls: the run's own pools
// (openPools, warmed by the profile) talk to a real PostgreSQL through a
// loopback proxy that reads the client's protocol messages. A round trip
// is a message the client must wait on: a Sync (extended protocol) or a
// Query (simple protocol), each answered by ReadyForQuery; the proxy also
// counts the client's turns (data sent after the server last spoke),
// which must agree.
//
// The counts are workload v20.1's (docs/fidelity/v20.1.md, "Round
// trips"): with pgx v3.6.2 its inline-value Query (New-Order's item and
// stock SELECTs, Delivery's UPDATE "order" ... RETURNING) prepares an
// unnamed statement and then executes it, two round trips each. New-Order
// 15 (8 when it rolls back: BEGIN, SAVEPOINT, 3 prepared statements, the
// item SELECT's 2, ROLLBACK), Payment 8 (9 by last name), Order-Status 7,
// Delivery 29 while every district has an undelivered order, Stock-Level
// 6. One transaction starts on a connection idle for more than a second:
// workload's pgx v3 pool hands it out without a ping, and so must the
// run's pools (pgxpool pings such a connection by default, a round trip
// more).
func TestWorkloadRoundTripsOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	dbURL, _ := tpcctest.LoadWarehouses(t, 1, 1, pgtest.NoSync())
	ctx := context.Background()

	proxy := pgtest.StartWireCounter(t, dbURL)
	pools, err := tpcc.OpenPools(ctx, []string{proxy.URL}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	parts, _ := tpcc.NewPartitions(1, 1, 1)
	p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
	if err := p.Warm(ctx, pools, 1, tpcc.Postgres); err != nil {
		t.Fatal(err)
	}
	w := rrWorker(t, p, dbURL, 11, 1)
	db := tpcc.PgxPool{Pool: pools[0]}

	want := wlRoundTrips
	seen := map[tpcc.TxnType]map[int64]int{}
	run := func(ty tpcc.TxnType) {
		t.Helper()
		before := proxy.Snapshot()
		if _, err := p.exec(ctx, w, db, ty, tpcc.Home{W: 0, D: 1}); err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
			t.Fatalf("%s: %v", ty, err)
		}
		d := proxy.Snapshot().Minus(before)
		if d.Waits() != d.Turns {
			t.Errorf("%s: %d Syncs and Queries but %d client turns", ty, d.Waits(), d.Turns)
		}
		if own := p.trips[ty].Load(); own != d.Waits() {
			t.Errorf("%s: the profile counted %d round trips, the wire %d", ty, own, d.Waits())
		}
		if seen[ty] == nil {
			seen[ty] = map[int64]int{}
		}
		seen[ty][d.Waits()]++
	}
	// An idle connection: a pool that pings it adds a round trip here.
	time.Sleep(1100 * time.Millisecond)
	run(tpcc.PaymentTxn)
	for range 10 {
		for ty := range tpcc.NumTxnTypes {
			run(ty)
		}
	}
	// The 1% rollback: more New-Orders until one (seed 11 draws one
	// within the first few hundred).
	for i := 0; i < 1000 && seen[tpcc.NewOrderTxn][8] == 0; i++ {
		run(tpcc.NewOrderTxn)
	}
	t.Logf("round trips measured (count: transactions): %v", seen)
	for ty, ns := range seen {
		for n := range ns {
			if !slices.Contains(want[ty], n) {
				t.Errorf("%s took %d round trips, want one of %v", ty, n, want[ty])
			}
		}
		for _, n := range want[ty] {
			if ns[n] == 0 {
				t.Errorf("%s: no transaction with %d round trips seen (seen %v)", ty, n, ns)
			}
		}
	}
	tpcctest.CheckConsistent(t, dbURL)
}

// TestWarmGoesToEveryURLAtOnce: the warm-up holds and prepares every
// connection at most tpcc.MaxDialsPerURL at a time per URL and every URL
// at once, as workload's pools dial and prepare (one URL after the other,
// a 100k host's 81 URLs took 30 minutes). Against two servers that never
// answer, each sees exactly 100 connections being established at once
// (a warm-up limited to 100 over all URLs gives the second none), and
// Warm fails when its context ends.
func TestWarmGoesToEveryURLAtOnce(t *testing.T) {
	a, b := pgtest.NewSilentServer(t), pgtest.NewSilentServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var pools []*pgxpool.Pool
	for _, s := range []*pgtest.SilentServer{a, b} {
		pc, err := pgxpool.ParseConfig(s.URL())
		if err != nil {
			t.Fatal(err)
		}
		pc.MaxConns = 250
		p, err := pgxpool.NewWithConfig(context.Background(), pc)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		pools = append(pools, p)
	}
	parts, _ := tpcc.NewPartitions(1, 1, 1)
	p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
	if err := p.Warm(ctx, pools, 250, tpcc.Postgres); err == nil {
		t.Fatal("Warm succeeded against servers that never answer")
	}
	for i, s := range []*pgtest.SilentServer{a, b} {
		if top := s.Top(); top != tpcc.MaxDialsPerURL {
			t.Errorf("server %d saw at most %d connections being established at once, want %d", i+1, top, tpcc.MaxDialsPerURL)
		}
	}
}

// TestPrepareInOneRoundTrip: the warm-up prepares a connection's fixed
// statements in one round trip (workload sends one per statement, the
// server ends in the same state), under workload's names; a connection
// the pool dials after the warm-up is prepared by its first transaction,
// which otherwise takes workload's round trips; a connection whose
// prepare fails part-way is closed, not handed out again with half its
// statements.
func TestPrepareInOneRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	dbURL, _ := tpcctest.LoadWarehouses(t, 1, 1, pgtest.NoSync())
	ctx := context.Background()
	proxy := pgtest.StartWireCounter(t, dbURL)
	parts, _ := tpcc.NewPartitions(1, 1, 1)
	wantNames := map[string]bool{}
	for _, s := range wlPrepared(tpcc.Postgres) {
		wantNames[s.name] = true
	}
	serverNames := func(c *pgx.Conn) map[string]bool {
		t.Helper()
		rows, err := c.Query(ctx, "SELECT name FROM pg_prepared_statements", pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, n := range names {
			got[n] = true
		}
		return got
	}

	t.Run("warm", func(t *testing.T) {
		pools, err := tpcc.OpenPools(ctx, []string{proxy.URL}, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer pools[0].Close()
		p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
		before := proxy.Snapshot()
		if err := p.Warm(ctx, pools, 3, tpcc.Postgres); err != nil {
			t.Fatal(err)
		}
		if d := proxy.Snapshot().Minus(before); d.Waits() != 3 {
			t.Errorf("warming 3 connections took %d round trips, want 3 (one each)", d.Waits())
		}
		err = tpcc.HoldEach(ctx, pools, 3, func(_ context.Context, _, j int, c *pgxpool.Conn) error {
			if got := serverNames(c.Conn()); !maps.Equal(got, wantNames) {
				t.Errorf("connection %d: the server holds %v, want workload's names %v", j+1, got, wantNames)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("dialled after the warm-up", func(t *testing.T) {
		pools, err := tpcc.OpenPools(ctx, []string{proxy.URL}, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer pools[0].Close()
		p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
		w := rrWorker(t, p, dbURL, 5, 1)
		db := tpcc.PgxPool{Pool: pools[0]}
		for i, extra := range []int64{1, 0} {
			before := proxy.Snapshot()
			if _, err := p.exec(ctx, w, db, tpcc.StockLevelTxn, tpcc.Home{W: 0, D: 1}); err != nil {
				t.Fatal(err)
			}
			if d := proxy.Snapshot().Minus(before); d.Waits() != 6+extra {
				t.Errorf("Stock-Level %d on a connection the warm-up never saw: %d round trips, want %d", i+1, d.Waits(), 6+extra)
			}
		}
	})

	t.Run("a failed prepare closes the connection", func(t *testing.T) {
		c, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		// "payment-1" taken: the Parse of the 6th statement fails after
		// five were prepared.
		if _, err := c.Exec(ctx, `PREPARE "payment-1" AS SELECT 1`); err != nil {
			t.Fatal(err)
		}
		p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
		if _, err := p.prepareConn(ctx, c); err == nil || !strings.Contains(err.Error(), "payment-1") {
			t.Fatalf("prepare over a taken name: %v, want an error naming payment-1", err)
		}
		if !c.IsClosed() {
			t.Error("the connection stays open with part of its statements")
		}
		if p.stmts.Load() != nil {
			t.Error("a failed prepare left the run's statement set")
		}
	})
}

// rrWorker is an executor of p at repeatable read, its random stream
// seeded with seed, over the w warehouses loaded at dbURL (C-Run from the
// database's meta).
func rrWorker(t *testing.T, p *Profile, dbURL string, seed uint64, w int) *worker {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	m, _, err := tpcc.DatabaseMeta(ctx, conn, 0)
	if err != nil {
		t.Fatal(err)
	}
	rw := pgx.TxOptions{IsoLevel: pgx.RepeatableRead}
	return p.NewExecutor(tpcc.Session{Rand: tpcc.NewRand(seed, 1), Constants: p.RunConstants(nil, m), Warehouses: w,
		Dialect: tpcc.Postgres, ReadWrite: rw, ReadOnly: rw, Tally: tpcc.NewTally(w)}).(*worker)
}

// TestDeliveryEmptyDistrict: a district without an undelivered order
// fails v20.1 workload's Delivery (the release's fact, crdb.Release
// DeliveryEmptyDistrictFails: its ErrNoRows test misses pgx's error),
// and is skipped (clause 2.7.4.2) when the release does not.
func TestDeliveryEmptyDistrict(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	if err := pgtest.Available(); err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	dbURL, _ := tpcctest.LoadWarehouses(t, 1, 1, pgtest.NoSync())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `DELETE FROM new_order WHERE no_w_id = 0 AND no_d_id = 3`); err != nil {
		t.Fatal(err)
	}
	pools, err := tpcc.OpenPools(ctx, []string{dbURL}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pools[0].Close()
	parts, _ := tpcc.NewPartitions(1, 1, 1)
	db := tpcc.PgxPool{Pool: pools[0]}
	v201 := crdb.Build{}.Release()
	if !v201.DeliveryEmptyDistrictFails {
		t.Error("v20.1's workload fails a Delivery with an empty district")
	}
	for _, fails := range []bool{true, false} {
		p := New(tpcc.Postgres, &tpcc.RunConfig{EmptyDistrictDeliveryFails: fails}, parts)
		if err := p.Warm(ctx, pools, 1, tpcc.Postgres); err != nil {
			t.Fatal(err)
		}
		w := rrWorker(t, p, dbURL, 11, 1)
		_, err := p.exec(ctx, w, db, tpcc.DeliveryTxn, tpcc.Home{W: 0, D: 1})
		if fails != (err != nil) || fails && !errors.Is(err, pgx.ErrNoRows) {
			t.Errorf("empty district fails Delivery: %v; error %v", fails, err)
		}
	}
}

// TestRowsStateRoundTrips: the rows of docs/fidelity/v20.1.md that state
// a transaction's round trips state this profile's (wlRoundTrips, which
// the wire test measures), every one of them and no other number, so a
// changed count fails the table.
func TestRowsStateRoundTrips(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/fidelity/v20.1.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]int64{
		"D6":  wlRoundTrips[tpcc.NewOrderTxn][1:], // the rollback
		"D8":  wlRoundTrips[tpcc.NewOrderTxn][:1],
		"D12": wlRoundTrips[tpcc.PaymentTxn],
		"D14": wlRoundTrips[tpcc.OrderStatusTxn],
		"D15": wlRoundTrips[tpcc.DeliveryTxn],
		"D16": wlRoundTrips[tpcc.StockLevelTxn],
	}
	stated := regexp.MustCompile(`\b(\d+)(?: or (\d+))? round trips\b|round_trips` + "`" + ` \(([0-9 and]+)\)`)
	found := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 3 {
			continue
		}
		id := strings.TrimSpace(cols[1])
		want, ok := rows[id]
		if !ok {
			continue
		}
		found[id] = true
		var got []int64
		for _, m := range stated.FindAllStringSubmatch(line, -1) {
			for _, g := range m[1:] {
				for _, f := range strings.Fields(strings.ReplaceAll(g, "and", " ")) {
					n, _ := strconv.ParseInt(f, 10, 64)
					got = append(got, n)
				}
			}
		}
		slices.Sort(got)
		got = slices.Compact(got)
		w := slices.Sorted(slices.Values(want))
		if !slices.Equal(got, w) {
			t.Errorf("row %s states %v round trips; the profile sends %v (wlRoundTrips)", id, got, w)
		}
	}
	for id := range rows {
		if !found[id] {
			t.Errorf("no row %s in docs/fidelity/v20.1.md", id)
		}
	}
}
