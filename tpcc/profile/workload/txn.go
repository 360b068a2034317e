package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc"
)

// The workload profile's transactions: CockroachDB workload v20.1's
// statements, in its order and its round trips, inside BEGIN, SAVEPOINT
// cockroach_restart ... RELEASE SAVEPOINT cockroach_restart, COMMIT
// (docs/fidelity/v20.1.md cites each). Statements with parameters are
// prepared on every connection at warm-up (workload's --method=prepare)
// and take one round trip each. Statements workload formats with values
// inline go as its pgx v3.6.2 sends them without arguments: an Exec as a
// simple query (one round trip), a Query as an unnamed statement
// prepared, then executed (two round trips: New-Order's item and stock
// SELECTs, Delivery's UPDATE "order" ... RETURNING).
//
// Where a statement is CockroachDB-only SQL, PostgreSQL gets the nearest
// statement that parses there, and a golden pins both
// (testdata/wl_statements.*.golden):
//   - Payment's `$1:::float` type assertions become `$1::float8` casts;
//   - New-Order's stock UPDATE has no `ELSE crdb_internal.force_error(..)`:
//     every CASE names each row the WHERE selects, so the ELSE is never
//     reached (s_quantity is nullable: were it reached, PostgreSQL would
//     write a NULL, not fail);
//   - Stock-Level's derived table gets the alias PostgreSQL before 16
//     requires;
//   - Delivery with no undelivered order in any district sends no
//     `IN ()` statements (an empty IN list is CockroachDB syntax).

// wlRoundTrips are the round trips of each of workload's transactions
// (without retries), as this profile sends them and as the tests count
// them on the wire: New-Order 9 statements, the item and stock SELECTs 2
// round trips each, + BEGIN, SAVEPOINT, RELEASE and COMMIT = 15 (the 1%
// rollback: 3 statements and the item SELECT's 2, BEGIN, SAVEPOINT,
// ROLLBACK = 8); Payment 8, or 9 by last name; Order-Status 7; Delivery
// 10 × 2 + 5 + 4 = 29 while every district has an undelivered order;
// Stock-Level 6. The rows of docs/fidelity/v20.1.md that state them are
// checked against this table (TestRowsStateRoundTrips), so a changed
// count fails the table too.
var wlRoundTrips = map[tpcc.TxnType][]int64{
	tpcc.NewOrderTxn:    {15, 8},
	tpcc.PaymentTxn:     {8, 9},
	tpcc.OrderStatusTxn: {7},
	tpcc.DeliveryTxn:    {29},
	tpcc.StockLevelTxn:  {6},
}

// wlSavepoint is workload's savepoint (cockroach-go's crdb.ExecuteInTx):
// on CockroachDB, ROLLBACK TO it restarts the transaction keeping its
// identity and priority, so a retried transaction does not starve.
const wlSavepoint = "cockroach_restart"

// wlStatements are a dialect's variants of the CockroachDB-only
// statements.
type wlStatements struct {
	payUpdateCustomer, slCount string
	forceError                 bool // New-Order's stock UPDATE guards its CASE with crdb_internal.force_error
	emptyIn                    bool // an empty IN () list parses
}

func wlStatementsFor(d tpcc.Dialect) wlStatements {
	if d == tpcc.Cockroach {
		return wlStatements{payUpdateCustomer: wlPayUpdateCustomerCRDB, slCount: wlSLCountCRDB, forceError: true, emptyIn: true}
	}
	return wlStatements{payUpdateCustomer: wlPayUpdateCustomerPG, slCount: wlSLCountPG}
}

// wlPrepared are the statements prepared on every connection, named as
// workload's SQLRunner.Init names them: "<transaction>-<i>", i counting
// from 1 in the order each transaction defines them.
//
// fidelity:v20.1/D17
func wlPrepared(d tpcc.Dialect) []wlStmt {
	s := wlStatementsFor(d)
	var out []wlStmt
	for _, tx := range []struct {
		name  string
		stmts []string
	}{
		{"new-order", []string{wlNOUpdateDistrict, wlNOSelectWTax, wlNOSelectCustomer, wlNOInsertOrder, wlNOInsertNewOrder}},
		{"payment", []string{wlPayUpdateWarehouse, wlPayUpdateDistrict, wlPaySelectByLast, s.payUpdateCustomer, wlPayInsertHistory}},
		{"order-status", []string{wlOSSelectByID, wlOSSelectByLast, wlOSSelectOrder, wlOSSelectItems}},
		{"delivery", []string{wlDelSelectNewOrder, wlDelSumAmount}},
		{"stock-level", []string{wlSLSelectDNextOID, s.slCount}},
	} {
		for i, q := range tx.stmts {
			out = append(out, wlStmt{name: tx.name + "-" + strconv.Itoa(i+1), sql: q})
		}
	}
	return out
}

// workloadItemA is workload's A for OL_I_ID: random(0, 8189) (tpcc's
// WorkloadConstants says how workload's NURand differs from the spec's).
const workloadItemA = 8189

// wlTime is how workload passes o_entry_d, h_date and ol_delivery_d:
// formatted to the second, without a zone.
//
// fidelity:v20.1/D10
const wlTime = "2006-01-02 15:04:05"

// wlTx is one transaction on one connection, counting its round trips.
type wlTx struct {
	ctx   context.Context
	c     *pgx.Conn
	trips int
	// stmts is the prepared statements (nil: --method other than
	// prepare), eqb the worker's builder of their parameters.
	stmts *stmtSet
	eqb   *pgx.ExtendedQueryBuilder
}

// simple sends sql without arguments as a simple query: one round trip.
func (t *wlTx) simple(sql string) error {
	t.trips++
	_, err := t.c.Exec(t.ctx, sql, pgx.QueryExecModeSimpleProtocol)
	return err
}

func (t *wlTx) queryRow(sql string, args []any, dest ...any) error {
	t.trips++
	rows, err := t.rows(sql, args)
	if err != nil {
		return err
	}
	return scanOne(rows, dest)
}

func (t *wlTx) exec(sql string, args ...any) error {
	t.trips++
	sd := t.stmt(sql)
	if sd == nil {
		_, err := t.c.Exec(t.ctx, sql, args...)
		return err
	}
	rows, err := t.prepared(sd, args)
	if err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// query runs sql and calls each for every row. inline is a statement
// with its values inline, which workload sends through pgx v3's QueryEx
// without arguments: Parse and Describe of the unnamed statement, Sync,
// wait; then Bind and Execute, Sync, wait (QueryEx's prepareEx("", sql),
// then sendPreparedQuery). pgx v5's describe-exec mode sends the same
// messages in the same two round trips.
//
// fidelity:v20.1/D17
func (t *wlTx) query(sql string, inline bool, args []any, each func(pgx.Rows) error) error {
	t.trips++
	var rows pgx.Rows
	var err error
	if inline {
		t.trips++
		rows, err = t.c.Query(t.ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	} else {
		rows, err = t.rows(sql, args)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// middleByLastName runs stmt, which selects the customers of district
// (wID, dID) named cLast ordered by first name, c_id first and the other
// columns into dest (each row's in turn, as workload scans them), and
// returns the middle row's c_id, rounded up (2.5.2.2, 2.6.2.2).
//
// fidelity:v20.1/D12
func (t *wlTx) middleByLastName(stmt string, wID, dID int32, cLast string, dest ...any) (int32, error) {
	var ids []int32
	err := t.query(stmt, false, []any{wID, dID, cLast}, func(rows pgx.Rows) error {
		var x int32
		if err := rows.Scan(append([]any{&x}, dest...)...); err != nil {
			return err
		}
		ids = append(ids, x)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("no customer named %s in w %d d %d", cLast, wID, dID)
	}
	return ids[(len(ids)-1)/2], nil
}

// wlRetryable is what the profile retries: 40001 (and CockroachDB's old
// CR000), as cockroach-go's ExecuteInTx; on PostgreSQL also a deadlock
// (40P01), which CockroachDB never reports and which aborts a PostgreSQL
// transaction the same way.
//
// fidelity:v20.1/D3
func wlRetryable(d tpcc.Dialect, err error) bool {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return false
	}
	return pg.Code == "40001" || pg.Code == "CR000" || (d != tpcc.Cockroach && pg.Code == "40P01")
}

// wlBegin is the transaction's BEGIN: workload's plain BEGIN on
// CockroachDB (serializable); on PostgreSQL the run's isolation level,
// whose default, repeatable read, makes conflicts surface as 40001.
//
// fidelity:v20.1/D1
func (p *Profile) begin(w *worker) string {
	if p.dialect == tpcc.Cockroach && (w.rwBegin == "BEGIN" || w.rwBegin == "BEGIN ISOLATION LEVEL serializable") {
		return "BEGIN"
	}
	return w.rwBegin
}

// inTx runs fn as workload's crdb.ExecuteInTx does: BEGIN, SAVEPOINT
// cockroach_restart, fn, RELEASE SAVEPOINT cockroach_restart, COMMIT; on
// a retryable error, ROLLBACK TO SAVEPOINT cockroach_restart and fn again,
// without a limit unless one was asked for (and without backoff, as
// workload). Any other error rolls back.
//
// PostgreSQL accepts the savepoint statements, but ROLLBACK TO SAVEPOINT
// after a serialization failure does not give the transaction a new
// snapshot: under repeatable read or serializable the retried statement
// fails again, forever (TestWorkloadSavepointRetryOnPostgres shows it).
// There a retry restarts the transaction instead: ROLLBACK, BEGIN,
// SAVEPOINT. And because PostgreSQL checks serializability at COMMIT,
// not at RELEASE, a failed COMMIT is retried too (workload ignores
// COMMIT's error: on CockroachDB RELEASE has committed).
//
// fidelity:v20.1/D2 fidelity:v20.1/D3 fidelity:v20.1/D4 fidelity:v20.1/D5
func (p *Profile) inTx(ctx context.Context, w *worker, db tpcc.Pool, typ tpcc.TxnType, fn func(*wlTx) error) (retries int, err error) {
	c, release, err := db.AcquireConn(ctx)
	if err != nil {
		return 0, fmt.Errorf("acquire connection: %w", err)
	}
	defer release()
	t := &wlTx{ctx: ctx, c: c, eqb: &w.eqb}
	if p.prepare {
		// Warm prepared every connection it held; one the pool dialled
		// since (a broken one replaced) is prepared here, as workload's
		// pool prepares a connection it dials.
		if t.stmts, err = p.prepareConn(ctx, c); err != nil {
			return 0, err
		}
	}
	defer func() { p.trips[typ].Store(int64(t.trips)) }()
	begin := p.begin(w)
	start := time.Now()
	open := false
	fail := func(err error) (int, error) {
		if open {
			if rerr := t.simple("ROLLBACK"); rerr != nil {
				_ = c.Close(context.Background()) // state unknown: not back to the pool
			}
		}
		return retries, err
	}
	if err := t.simple(begin); err != nil {
		return fail(err)
	}
	open = true
	if err := t.simple("SAVEPOINT " + wlSavepoint); err != nil {
		return fail(err)
	}
	for {
		err = fn(t)
		if err == nil {
			if err = t.simple("RELEASE SAVEPOINT " + wlSavepoint); err == nil {
				if err = t.simple("COMMIT"); err == nil {
					return retries, nil
				}
			}
		}
		if !wlRetryable(p.dialect, err) || ctx.Err() != nil {
			return fail(err)
		}
		if p.noRetry || (p.retryLimit > 0 && retries >= p.retryLimit) {
			return fail(&tpcc.RetriesExhaustedError{Retries: retries, Elapsed: time.Since(start), Err: err})
		}
		retries++
		if p.dialect == tpcc.Cockroach {
			if err := t.simple("ROLLBACK TO SAVEPOINT " + wlSavepoint); err != nil {
				return fail(err)
			}
			continue
		}
		if err := t.simple("ROLLBACK"); err != nil {
			return fail(err)
		}
		if err := t.simple(begin); err != nil {
			return fail(err)
		}
		if err := t.simple("SAVEPOINT " + wlSavepoint); err != nil {
			return fail(err)
		}
	}
}

// exec runs one transaction of type t the way workload does.
func (p *Profile) exec(ctx context.Context, w *worker, db tpcc.Pool, t tpcc.TxnType, home tpcc.Home) (int, error) {
	switch t {
	case tpcc.NewOrderTxn:
		return p.newOrder(ctx, w, db, home.W)
	case tpcc.PaymentTxn:
		return p.payment(ctx, w, db, home.W)
	case tpcc.OrderStatusTxn:
		return p.orderStatus(ctx, w, db, home.W)
	case tpcc.DeliveryTxn:
		return p.delivery(ctx, w, db, home.W)
	case tpcc.StockLevelTxn:
		return p.stockLevel(ctx, w, db, home.W)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
}

// randActive is workload's remote warehouse: uniform over all active
// warehouses of the run (all partitions), drawn again while it is the
// home warehouse.
//
// fidelity:v20.1/D7
func (p *Profile) randActive(w *worker, home int32) int32 {
	for {
		x := p.active.at(w.rng.Int(0, p.active.len()-1))
		if x != home || p.active.len() < 2 {
			return x
		}
	}
}
