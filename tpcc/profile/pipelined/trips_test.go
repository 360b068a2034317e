package pipelined

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// tripCounter counts a connection's round trips as pgx's tracer sees
// them: every batch, query, exec and prepare waits for the server once
// (the statements are prepared by name before the counting starts, so
// pgx adds no Parse round of its own).
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (c *tripCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// tracedWorker is a repeatable-read worker on one warehouse with a
// one-connection pool that prepares as Run's does, its round trips
// counted; the pool's statements are prepared before it is returned.
func tracedWorker(t *testing.T, url string) (*worker, tpcc.PgxPool, *tripCounter) {
	t.Helper()
	ctx := context.Background()
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	pc.MaxConns = 1
	pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	trips := &tripCounter{}
	pc.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	load, err := tpcc.ReadConstants(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorker(tpcc.Session{Rand: tpcc.NewRand(30, 1), Constants: tpcc.NewRunConstants(tpcc.NewRand(30, 0), load), Warehouses: 1,
		Dialect: tpcc.Postgres, ReadWrite: pgx.TxOptions{IsoLevel: pgx.RepeatableRead},
		ReadOnly: pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, Tally: tpcc.NewTally(1)})
	c, release, err := tpcc.PgxPool{Pool: pool}.AcquireConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = w.prepare(ctx, c)
	release()
	if err != nil {
		t.Fatal(err)
	}
	return w, tpcc.PgxPool{Pool: pool}, trips
}

// TestPipelinedRoundTripsAndPayment pins the pipelined profile's round
// trips (they are most of the client's CPU): New-Order 1 (2
// when it rolls back: the failed batch and the ROLLBACK), Payment 1 and
// Order-Status 1 whether the customer is chosen by C_ID or by last name
// (the database picks the customer at position ceil(n/2)), Delivery 2,
// Stock-Level 1. Then it checks what
// Payment by name must do (clause 2.5.2.2): the customer at position
// ceil(n/2) by C_FIRST is paid, the HISTORY row names that customer with
// H_DATA = W_NAME, four spaces, D_NAME; a bad-credit customer's C_DATA
// starts with C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT; and a name that
// matches nobody fails the transaction and commits nothing.
func TestPipelinedRoundTripsAndPayment(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := tpcctest.LoadWarehouses(t, 1, 1)
	ctx := context.Background()
	w, db, trips := tracedWorker(t, url)
	home := tpcc.Home{W: 0, D: 1}

	want := map[tpcc.TxnType][]int64{tpcc.NewOrderTxn: {1}, tpcc.PaymentTxn: {1}, tpcc.OrderStatusTxn: {1}, tpcc.DeliveryTxn: {2}, tpcc.StockLevelTxn: {1}}
	rollbacks := 0
	for i := 0; i < 30 || rollbacks == 0 && i < 1000; i++ {
		for ty := range tpcc.NumTxnTypes {
			if i >= 30 && ty != tpcc.NewOrderTxn {
				continue // more New-Orders until one rolls back
			}
			before := trips.n.Load()
			w.txn = ty
			if _, err := w.Exec(ctx, db, ty, home); err != nil {
				t.Fatalf("%s: %v", ty, err)
			}
			wantTy := want[ty]
			if ty == tpcc.NewOrderTxn && w.no.in.Rollback {
				rollbacks++
				wantTy = []int64{2}
			}
			if n := trips.n.Load() - before; !containsInt(wantTy, n) {
				t.Errorf("%s took %d round trips, want one of %v", ty, n, wantTy)
			}
		}
	}
	if rollbacks == 0 {
		t.Error("no New-Order rolled back in 1,000")
	}

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name string
	var n int
	if err := conn.QueryRow(ctx, `SELECT c_last, count(*) FROM customer WHERE c_w_id = 0 AND c_d_id = 2
GROUP BY c_last HAVING count(*) >= 2 ORDER BY count(*) DESC, c_last LIMIT 1`).Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	var ids []int32
	rows, _ := conn.Query(ctx, `SELECT c_id FROM customer WHERE c_w_id = 0 AND c_d_id = 2 AND c_last = $1 ORDER BY c_first`, name)
	if ids, err = pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil || len(ids) != n {
		t.Fatalf("customers named %s: %v %v", name, ids, err)
	}
	chosen := ids[(n+1)/2-1] // position ceil(n/2), 1-based
	before := trips.n.Load()
	if _, err := w.pay(ctx, db, tpcc.PaymentInput{WID: 0, DID: 3, CWID: 0, CDID: 2, CLast: name, Cents: 12345}); err != nil {
		t.Fatal(err)
	}
	if d := trips.n.Load() - before; d != 1 {
		t.Errorf("payment by name took %d round trips, want 1", d)
	}
	var hc int32
	var hData, wName, dName string
	if err := conn.QueryRow(ctx, `SELECT h_c_id, h_data FROM history WHERE h_w_id = 0 AND h_d_id = 3 AND h_c_d_id = 2 AND h_amount = 123.45`).Scan(&hc, &hData); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT w_name, d_name FROM warehouse, district WHERE w_id = 0 AND d_w_id = 0 AND d_id = 3`).Scan(&wName, &dName); err != nil {
		t.Fatal(err)
	}
	if hc != chosen || hData != wName+"    "+dName {
		t.Errorf("history row (c %d, %q), want (c %d of %v, %q)", hc, hData, chosen, ids, wName+"    "+dName)
	}
	if err := conn.QueryRow(ctx, `SELECT c_payment_cnt FROM customer WHERE c_w_id = 0 AND c_d_id = 2 AND c_id = $1`, chosen).Scan(&n); err != nil || n < 2 {
		t.Errorf("customer %d: c_payment_cnt %d (%v), want >= 2 (the load's 1 and this payment)", chosen, n, err)
	}

	// A bad-credit customer, by name: C_DATA's new prefix.
	var bcID int32
	if err := conn.QueryRow(ctx, `SELECT c_id, c_last FROM customer c WHERE c_w_id = 0 AND c_d_id = 4 AND c_credit = 'BC'
AND (SELECT count(*) FROM customer o WHERE o.c_w_id = 0 AND o.c_d_id = 4 AND o.c_last = c.c_last) = 1 LIMIT 1`).Scan(&bcID, &name); err != nil {
		t.Fatal(err)
	}
	if _, err := w.pay(ctx, db, tpcc.PaymentInput{WID: 0, DID: 5, CWID: 0, CDID: 4, CLast: name, Cents: 50000}); err != nil {
		t.Fatal(err)
	}
	var cData string
	if err := conn.QueryRow(ctx, `SELECT c_data FROM customer WHERE c_w_id = 0 AND c_d_id = 4 AND c_id = $1`, bcID).Scan(&cData); err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(int(bcID)) + " 4 0 5 0 500.00 | "; !strings.HasPrefix(cData, want) || len(cData) > 500 {
		t.Errorf("BC customer %d: c_data %.60q..., want it to start with %q and keep <= 500 characters", bcID, cData, want)
	}

	// Nobody of that name: nothing is committed.
	var ytd0, ytd1 string
	if err := conn.QueryRow(ctx, `SELECT w_ytd::TEXT FROM warehouse WHERE w_id = 0`).Scan(&ytd0); err != nil {
		t.Fatal(err)
	}
	if _, err := w.pay(ctx, db, tpcc.PaymentInput{WID: 0, DID: 1, CWID: 0, CDID: 1, CLast: "NOBODY", Cents: 100}); err == nil || !strings.Contains(err.Error(), "NOBODY") {
		t.Errorf("payment to nobody: %v, want an error naming NOBODY", err)
	}
	if err := conn.QueryRow(ctx, `SELECT w_ytd::TEXT FROM warehouse WHERE w_id = 0`).Scan(&ytd1); err != nil {
		t.Fatal(err)
	}
	if ytd0 != ytd1 {
		t.Errorf("payment to nobody changed W_YTD from %s to %s", ytd0, ytd1)
	}
	tpcctest.CheckConsistent(t, url)
}

func containsInt(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestRetryRollbackRidesTheBatch: a transaction that fails with a real
// serialization failure (repeatable read, first-updater-wins) on its
// first attempt is retried at once on the same connection, whose first
// batch carries the ROLLBACK: 2 round trips for the failed attempt and 2
// for the retry, none for a ROLLBACK of its own. The failed attempt's
// write is undone and the connection goes back to the pool idle.
func TestRetryRollbackRidesTheBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := tpcctest.LoadWarehouses(t, 1, 1)
	ctx := context.Background()
	w, db, trips := tracedWorker(t, url)
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	attempts := 0
	before := trips.n.Load()
	retries, err := w.inPipe(ctx, db, w.rwBegin, func(tx *pipeTx) error {
		attempts++
		var b pgx.Batch
		b.Queue(`UPDATE district SET d_ytd = d_ytd + 1000000 WHERE d_w_id = 0 AND d_id = 7`)
		if err := tx.send(ctx, &b, false); err != nil {
			return err
		}
		if attempts == 1 {
			// Another transaction updates the warehouse after this
			// one's snapshot, so this one's update must fail.
			if _, err := other.Exec(ctx, `UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 0`); err != nil {
				return err
			}
		}
		var b2 pgx.Batch
		b2.Queue(`UPDATE warehouse SET w_ytd = w_ytd + 0 WHERE w_id = 0`)
		return tx.send(ctx, &b2, true)
	})
	if err != nil || retries != 1 || attempts != 2 {
		t.Fatalf("%d attempts, %d retries, %v; want a 40001 retried once", attempts, retries, err)
	}
	if n := trips.n.Load() - before; n != 4 {
		t.Errorf("%d round trips, want 4 (the retry's ROLLBACK in its first batch)", n)
	}
	var ytd float64
	if err := other.QueryRow(ctx, `SELECT d_ytd FROM district WHERE d_w_id = 0 AND d_id = 7`).Scan(&ytd); err != nil {
		t.Fatal(err)
	}
	if ytd < 1000000 || ytd >= 2000000 {
		t.Errorf("d_ytd %v: want the district updated once (the failed attempt rolled back)", ytd)
	}
	idle := func() {
		t.Helper()
		c, release, err := db.AcquireConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if s := c.PgConn().TxStatus(); s != 'I' {
			t.Errorf("connection back in the pool in transaction state %q, want idle", s)
		}
	}
	idle()

	// A policy without retries rolls back at once (one round trip more)
	// and leaves the connection idle too.
	w.retryPolicy.None = true
	attempts = 0
	before = trips.n.Load()
	_, err = w.inPipe(ctx, db, w.rwBegin, func(tx *pipeTx) error {
		attempts++
		var b pgx.Batch
		b.Queue(`SELECT 1`)
		if err := tx.send(ctx, &b, false); err != nil {
			return err
		}
		if _, err := other.Exec(ctx, `UPDATE warehouse SET w_ytd = w_ytd WHERE w_id = 0`); err != nil {
			return err
		}
		var b2 pgx.Batch
		b2.Queue(`UPDATE warehouse SET w_ytd = w_ytd + 0 WHERE w_id = 0`)
		return tx.send(ctx, &b2, true)
	})
	if !tpcc.Retryable(err) || attempts != 1 {
		t.Fatalf("no retries: %d attempts, %v; want one 40001", attempts, err)
	}
	if n := trips.n.Load() - before; n != 3 {
		t.Errorf("%d round trips, want 3 (2 and the ROLLBACK)", n)
	}
	idle()
}

// choose is a tpcc.ChooseProfile of this package's profile alone (the
// composition point, tpcc/profile, imports this package).
func choose(tpcc.Profile, tpcc.Dialect, *tpcc.RunConfig, tpcc.Partitions) (tpcc.LoadProfile, error) {
	return Profile{}, nil
}
