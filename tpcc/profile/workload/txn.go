package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// The fixed statements (prepared at warm-up).
const (
	wlNOUpdateDistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax, d_next_o_id`
	wlNOSelectWTax     = `SELECT w_tax FROM warehouse WHERE w_id = $1`
	wlNOSelectCustomer = `SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	wlNOInsertOrder    = `INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	wlNOInsertNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`

	wlPayUpdateWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2 RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`
	wlPayUpdateDistrict  = `UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3 RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`
	wlPaySelectByLast    = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first ASC`
	// wlPayUpdateCustomerCRDB is CockroachDB-only (`:::` type assertions).
	//
	// fidelity:v20.1/D13
	wlPayUpdateCustomerCRDB = `UPDATE customer SET (c_balance, c_ytd_payment, c_payment_cnt, c_data) = (c_balance - ($1:::float)::decimal, c_ytd_payment + ($1:::float)::decimal, c_payment_cnt + 1, case c_credit when 'BC' then left(c_id::text || c_d_id::text || c_w_id::text || ($5:::int)::text || ($6:::int)::text || ($1:::float)::text || c_data, 500) else c_data end) WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4 RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, case c_credit when 'BC' then left(c_data, 200) else '' end`
	wlPayUpdateCustomerPG   = `UPDATE customer SET (c_balance, c_ytd_payment, c_payment_cnt, c_data) = (c_balance - ($1::float8)::decimal, c_ytd_payment + ($1::float8)::decimal, c_payment_cnt + 1, case c_credit when 'BC' then left(c_id::text || c_d_id::text || c_w_id::text || ($5::int8)::text || ($6::int8)::text || ($1::float8)::text || c_data, 500) else c_data end) WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4 RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, case c_credit when 'BC' then left(c_data, 200) else '' end`
	wlPayInsertHistory      = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_date, h_data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

	wlOSSelectByID   = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	wlOSSelectByLast = `SELECT c_id, c_balance, c_first, c_middle FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first ASC`
	wlOSSelectOrder  = `SELECT o_id, o_entry_d, o_carrier_id FROM "order" WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	wlOSSelectItems  = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`

	wlDelSelectNewOrder = `SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id ASC LIMIT 1`
	wlDelSumAmount      = `SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`

	wlSLSelectDNextOID = `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`
	// wlSLCountCRDB's derived table has no alias: CockroachDB (and
	// PostgreSQL 16+) only.
	//
	// fidelity:v20.1/D16
	wlSLCountCRDB = `SELECT count(*) FROM (SELECT DISTINCT s_i_id FROM order_line JOIN stock ON s_i_id=ol_i_id AND s_w_id=ol_w_id WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id BETWEEN $3 - 20 AND $3 - 1 AND s_quantity < $4)`
	wlSLCountPG   = wlSLCountCRDB + ` AS recent`
)

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

// wlLine is a New-Order line as workload draws it.
type wlLine struct {
	item, supply, number, quantity int32
	remote                         bool
	price                          float64
	dist                           string
}

// wlNewOrderInput is New-Order's input (clause 2.4.1 as workload draws
// it: per transaction a random district, C_ID with its C, 5..15 lines
// with distinct items sorted by item id, 1% rollback on the last line's
// item id -1, 1% remote lines from the active warehouses).
type wlNewOrderInput struct {
	wID, dID, cID int32
	rollback      bool
	allLocal      int
	lines         []wlLine
}

// fidelity:v20.1/D7
func (p *Profile) drawNewOrder(w *worker, wID int32) wlNewOrderInput {
	r, c := w.rng, w.constants
	in := wlNewOrderInput{wID: wID, dID: int32(r.Int(1, 10)), cID: int32(r.CustomerID(c)), allLocal: 1}
	n := r.Int(5, 15)
	in.rollback = r.Int(0, 99) == 0
	for i := range n {
		l := wlLine{number: int32(i + 1), quantity: int32(r.Int(1, 10))}
		if in.rollback && i == n-1 {
			l.item = -1
		} else {
			for {
				l.item = int32(r.NURand(workloadItemA, 1, 100000, c.OLIID))
				if !slices.ContainsFunc(in.lines, func(o wlLine) bool { return o.item == l.item }) {
					break
				}
			}
		}
		l.remote = r.Int(0, 99) == 0
		l.supply = wID
		if l.remote && p.active.len() > 1 {
			in.allLocal = 0
			l.supply = p.randActive(w, wID)
		}
		in.lines = append(in.lines, l)
	}
	// Sorted as the batch SELECTs return them.
	slices.SortFunc(in.lines, func(a, b wlLine) int { return int(a.item - b.item) })
	return in
}

// wlNewOrderItemSQL is New-Order's item SELECT with the ids inline.
func wlNewOrderItemSQL(lines []wlLine) string {
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = strconv.Itoa(int(l.item))
	}
	return `SELECT i_price, i_name, i_data FROM item WHERE i_id IN (` + strings.Join(ids, ", ") + `) ORDER BY i_id`
}

func wlStockKeys(lines []wlLine) []string {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = fmt.Sprintf("(%d, %d)", l.item, l.supply)
	}
	return keys
}

// wlNewOrderStockSQL is New-Order's stock SELECT for district dID.
func wlNewOrderStockSQL(dID int32, lines []wlLine) string {
	return fmt.Sprintf(`SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt, s_data, s_dist_%02d FROM stock WHERE (s_i_id, s_w_id) IN (%s) ORDER BY s_i_id`,
		dID, strings.Join(wlStockKeys(lines), ", "))
}

// wlStockUpdate is one stock row's new values.
type wlStockUpdate struct{ quantity, ytd, orderCnt, remoteCnt int }

// wlNewOrderStockUpdateSQL is New-Order's stock UPDATE: one statement
// with a CASE per column keyed by (s_i_id, s_w_id).
//
// fidelity:v20.1/D9
func wlNewOrderStockUpdateSQL(s wlStatements, lines []wlLine, ups []wlStockUpdate) string {
	keys := wlStockKeys(lines)
	var q, y, o, rc []string
	for i, u := range ups {
		q = append(q, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.quantity))
		y = append(y, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.ytd))
		o = append(o, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.orderCnt))
		rc = append(rc, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.remoteCnt))
	}
	guard := ""
	if s.forceError {
		guard = " ELSE crdb_internal.force_error('', 'unknown case')"
	}
	return fmt.Sprintf(`UPDATE stock SET s_quantity = CASE (s_i_id, s_w_id) %s%s END, s_ytd = CASE (s_i_id, s_w_id) %s END, s_order_cnt = CASE (s_i_id, s_w_id) %s END, s_remote_cnt = CASE (s_i_id, s_w_id) %s END WHERE (s_i_id, s_w_id) IN (%s)`,
		strings.Join(q, " "), guard, strings.Join(y, " "), strings.Join(o, " "), strings.Join(rc, " "), strings.Join(keys, ", "))
}

// wlNewOrderLinesSQL is New-Order's order_line INSERT with every line's
// values inline (ol_amount with six decimals, as workload's %f).
func wlNewOrderLinesSQL(oID, dID, wID int32, lines []wlLine) string {
	vals := make([]string, len(lines))
	for i, l := range lines {
		vals[i] = fmt.Sprintf("(%d,%d,%d,%d,%d,%d,%d,%f,'%s')", oID, dID, wID, l.number, l.item, l.supply, l.quantity,
			float64(l.quantity)*l.price, l.dist)
	}
	return `INSERT INTO order_line(ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ` + strings.Join(vals, ", ")
}

// newOrder is workload's New-Order: UPDATE district, SELECT warehouse,
// SELECT customer, SELECT item, SELECT stock, INSERT order, INSERT
// new_order, UPDATE stock, INSERT order_line: 9 statements, 15 round
// trips with BEGIN, SAVEPOINT, RELEASE and COMMIT (the item and stock
// SELECTs take two each). A rollback (1%) ends after the item SELECT
// finds the unused id missing: 8 round trips with its ROLLBACK.
//
// fidelity:v20.1/D6 fidelity:v20.1/D8
func (p *Profile) newOrder(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	in := p.drawNewOrder(w, wID)
	entry := time.Now().UTC().Format(wlTime)
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.NewOrderTxn, func(t *wlTx) error {
		var dTax, wTax, cDiscount float64
		var dNext int32
		var cLast, cCredit string
		if err := t.queryRow(wlNOUpdateDistrict, []any{in.wID, in.dID}, &dTax, &dNext); err != nil {
			return err
		}
		oID := dNext - 1
		if err := t.queryRow(wlNOSelectWTax, []any{in.wID}, &wTax); err != nil {
			return err
		}
		if err := t.queryRow(wlNOSelectCustomer, []any{in.wID, in.dID, in.cID}, &cDiscount, &cLast, &cCredit); err != nil {
			return err
		}
		iData := make([]string, len(in.lines))
		n := 0
		if err := t.query(wlNewOrderItemSQL(in.lines), true, nil, func(rows pgx.Rows) error {
			if n == len(in.lines) {
				return errors.New("extra item row")
			}
			var name string
			if err := rows.Scan(&in.lines[n].price, &name, &iData[n]); err != nil {
				return err
			}
			n++
			return nil
		}); err != nil {
			return err
		}
		if n < len(in.lines) {
			if in.rollback {
				return tpcc.ErrNewOrderRollback // 2.4.2.3: the unused item is not found
			}
			return errors.New("missing item row")
		}
		ups := make([]wlStockUpdate, len(in.lines))
		n = 0
		if err := t.query(wlNewOrderStockSQL(in.dID, in.lines), true, nil, func(rows pgx.Rows) error {
			if n == len(in.lines) {
				return errors.New("extra stock row")
			}
			var q, ytd, cnt, rcnt int
			var sData string
			if err := rows.Scan(&q, &ytd, &cnt, &rcnt, &sData, &in.lines[n].dist); err != nil {
				return err
			}
			l := in.lines[n]
			nq := q - int(l.quantity)
			if q < int(l.quantity)+10 {
				nq += 91 // 2.4.2.2
			}
			if l.remote {
				rcnt++
			}
			ups[n] = wlStockUpdate{quantity: nq, ytd: ytd + int(l.quantity), orderCnt: cnt + 1, remoteCnt: rcnt}
			n++
			return nil
		}); err != nil {
			return err
		}
		if n < len(in.lines) {
			return errors.New("missing stock row")
		}
		if err := t.exec(wlNOInsertOrder, oID, in.dID, in.wID, in.cID, entry, len(in.lines), in.allLocal); err != nil {
			return err
		}
		if err := t.exec(wlNOInsertNewOrder, oID, in.dID, in.wID); err != nil {
			return err
		}
		if err := t.simple(wlNewOrderStockUpdateSQL(s, in.lines, ups)); err != nil {
			return err
		}
		if err := t.simple(wlNewOrderLinesSQL(oID, in.dID, in.wID, in.lines)); err != nil {
			return err
		}
		var total float64
		for _, l := range in.lines {
			total += float64(l.quantity) * l.price
		}
		w.lastTotal = total * (1 - cDiscount) * (1 + wTax + dTax)
		return nil
	})
	if err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.wID, in.dID, in.cID, err)
	}
	w.tally.NewOrder(in.wID, len(in.lines), in.rollback, func(i int) int32 { return in.lines[i].supply })
	return retries, err
}

// payment is workload's Payment: UPDATE warehouse, UPDATE district,
// [SELECT customers by last name], UPDATE customer, INSERT history: 4 or
// 5 statements, 8 or 9 round trips. As in workload, the by-name SELECT
// looks in the home warehouse and district even for a remote customer.
//
// fidelity:v20.1/D11 fidelity:v20.1/D12
func (p *Profile) payment(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	r, c := w.rng, w.constants
	dID := int32(r.Int(1, 10))
	amount := float64(r.Int(100, 500000)) / 100
	date := time.Now().UTC().Format(wlTime)
	cWID, cDID := wID, dID
	if r.Int(0, 99) >= 85 {
		cWID = p.randActive(w, wID)
		cDID = int32(r.Int(1, 10))
	}
	var cLast string
	var cID int32
	byName := r.Int(0, 99) < 60
	if byName {
		cLast = r.LastNameRun(c)
	} else {
		cID = int32(r.CustomerID(c))
	}
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.PaymentTxn, func(t *wlTx) error {
		var wName, dName, x1, x2, x3, x4, x5 string
		if err := t.queryRow(wlPayUpdateWarehouse, []any{amount, wID}, &wName, &x1, &x2, &x3, &x4, &x5); err != nil {
			return err
		}
		if err := t.queryRow(wlPayUpdateDistrict, []any{amount, wID, dID}, &dName, &x1, &x2, &x3, &x4, &x5); err != nil {
			return err
		}
		id := cID
		if byName {
			var err error
			if id, err = t.middleByLastName(wlPaySelectByLast, wID, dID, cLast); err != nil {
				return fmt.Errorf("select by last name: %w", err)
			}
		}
		var first, middle, last, st1, st2, city, state, zip, phone, credit, data string
		var since time.Time
		var creditLim, discount, balance float64
		if err := t.queryRow(s.payUpdateCustomer, []any{amount, cWID, cDID, id, dID, wID},
			&first, &middle, &last, &st1, &st2, &city, &state, &zip, &phone, &since, &credit,
			&creditLim, &discount, &balance, &data); err != nil {
			return fmt.Errorf("update customer: %w", err)
		}
		return t.exec(wlPayInsertHistory, id, cDID, cWID, dID, wID, amount, date, wName+"    "+dName)
	})
	if err != nil {
		return retries, fmt.Errorf("payment (w %d, d %d): %w", wID, dID, err)
	}
	w.tally.Payment(wID, cWID, byName)
	return retries, nil
}

// orderStatus is workload's Order-Status: SELECT customer (by id, or all
// of a last name), SELECT the latest order, SELECT its lines: 3
// statements, 7 round trips.
//
// fidelity:v20.1/D14
func (p *Profile) orderStatus(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	r, c := w.rng, w.constants
	dID := int32(r.Int(1, 10))
	var cLast string
	var cID int32
	byName := r.Int(0, 99) < 60
	if byName {
		cLast = r.LastNameRun(c)
	} else {
		cID = int32(r.CustomerID(c))
	}
	retries, err := p.inTx(ctx, w, db, tpcc.OrderStatusTxn, func(t *wlTx) error {
		var balance float64
		var first, middle, last string
		id := cID
		if !byName {
			if err := t.queryRow(wlOSSelectByID, []any{wID, dID, cID}, &balance, &first, &middle, &last); err != nil {
				return fmt.Errorf("select customer by id: %w", err)
			}
		} else {
			var err error
			if id, err = t.middleByLastName(wlOSSelectByLast, wID, dID, cLast, &balance, &first, &middle); err != nil {
				return fmt.Errorf("select customers by last name: %w", err)
			}
		}
		var oID int32
		var entry time.Time
		var carrier *int32
		if err := t.queryRow(wlOSSelectOrder, []any{wID, dID, id}, &oID, &entry, &carrier); err != nil {
			return fmt.Errorf("select order: %w", err)
		}
		return t.query(wlOSSelectItems, false, []any{wID, dID, oID}, func(rows pgx.Rows) error {
			var item, supply, qty int32
			var amount float64
			var delivered *time.Time
			return rows.Scan(&item, &supply, &qty, &amount, &delivered)
		})
	})
	if err != nil {
		return retries, fmt.Errorf("order-status (w %d, d %d): %w", wID, dID, err)
	}
	w.tally.OrderStatus(byName)
	return retries, nil
}

// wlPair is a (district, value) pair of Delivery, in district order.
type wlPair struct {
	d  int32
	id int32
}

func wlInTuples(ps []wlPair) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("(%d, %d)", p.d, p.id)
	}
	return strings.Join(s, ", ")
}

// wlDeliverySQL are Delivery's four batch statements for orders (district,
// o_id), their customers (district, c_id) and totals per district.
// (workload joins them from Go maps, in no fixed order; these are in
// district order, the same set.)
//
// fidelity:v20.1/D15
func wlDeliverySQL(wID, carrier int32, date string, orders, customers []wlPair, totals map[int32]float64) (updOrder, updCustomer, delNewOrder, updLines string) {
	ot := wlInTuples(orders)
	updOrder = fmt.Sprintf(`UPDATE "order" SET o_carrier_id = %d WHERE o_w_id = %d AND (o_d_id, o_id) IN (%s) RETURNING o_d_id, o_c_id`, carrier, wID, ot)
	var cases []string
	for _, o := range orders {
		cases = append(cases, fmt.Sprintf("WHEN %d THEN %f", o.d, totals[o.d]))
	}
	updCustomer = fmt.Sprintf(`UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1, c_balance = c_balance + CASE c_d_id %s END WHERE c_w_id = %d AND (c_d_id, c_id) IN (%s)`,
		strings.Join(cases, " "), wID, wlInTuples(customers))
	delNewOrder = fmt.Sprintf(`DELETE FROM new_order WHERE no_w_id = %d AND (no_d_id, no_o_id) IN (%s)`, wID, ot)
	updLines = fmt.Sprintf(`UPDATE order_line SET ol_delivery_d = '%s' WHERE ol_w_id = %d AND (ol_d_id, ol_o_id) IN (%s)`, date, wID, ot)
	return
}

// delivery is workload's Delivery: per district SELECT the oldest new
// order and SELECT its lines' sum, then UPDATE order, UPDATE customer,
// DELETE new_order, UPDATE order_line for all districts at once: up to
// 24 statements, 29 round trips (the UPDATE "order" ... RETURNING takes
// two).
//
// fidelity:v20.1/D15
func (p *Profile) delivery(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	carrier := int32(w.rng.Int(1, 10))
	date := time.Now().UTC().Format(wlTime)
	s := wlStatementsFor(p.dialect)
	var skipped int
	retries, err := p.inTx(ctx, w, db, tpcc.DeliveryTxn, func(t *wlTx) error {
		skipped = 0
		var orders []wlPair
		totals := map[int32]float64{}
		for d := int32(1); d <= 10; d++ {
			var oID int32
			if err := t.queryRow(wlDelSelectNewOrder, []any{wID, d}, &oID); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					if p.emptyDistrictFails {
						// v20.1's workload returns the error (it tests
						// it against database/sql's ErrNoRows).
						return fmt.Errorf("district %d has no undelivered order, which fails workload's Delivery: %w", d, err)
					}
					skipped++ // 2.7.4.2: no undelivered order, the district is skipped
					continue
				}
				return err
			}
			orders = append(orders, wlPair{d, oID})
			var total *float64
			if err := t.queryRow(wlDelSumAmount, []any{wID, d, oID}, &total); err != nil {
				return err
			}
			if total != nil {
				totals[d] = *total
			}
		}
		if len(orders) == 0 && !s.emptyIn {
			return nil
		}
		updOrder, _, delNO, updLines := wlDeliverySQL(wID, carrier, date, orders, nil, totals)
		var customers []wlPair
		if err := t.query(updOrder, true, nil, func(rows pgx.Rows) error {
			var d, cID int32
			if err := rows.Scan(&d, &cID); err != nil {
				return err
			}
			customers = append(customers, wlPair{d, cID})
			return nil
		}); err != nil {
			return err
		}
		if len(customers) != len(orders) {
			return fmt.Errorf("delivery: %d orders updated, %d expected", len(customers), len(orders))
		}
		slices.SortFunc(customers, func(a, b wlPair) int { return int(a.d - b.d) })
		_, updCust, _, _ := wlDeliverySQL(wID, carrier, date, orders, customers, totals)
		if err := t.simple(updCust); err != nil {
			return err
		}
		if err := t.simple(delNO); err != nil {
			return err
		}
		return t.simple(updLines)
	})
	if err != nil {
		return retries, fmt.Errorf("delivery (w %d): %w", wID, err)
	}
	w.tally.Delivery(skipped)
	return retries, nil
}

// stockLevel is workload's Stock-Level: SELECT d_next_o_id, then the
// count of distinct recent items below the threshold: 2 statements, 6
// round trips, in a random district (workload does not fix a terminal's
// district).
//
// fidelity:v20.1/D16
func (p *Profile) stockLevel(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	threshold := int32(w.rng.Int(10, 20))
	dID := int32(w.rng.Int(1, 10))
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.StockLevelTxn, func(t *wlTx) error {
		var next int32
		if err := t.queryRow(wlSLSelectDNextOID, []any{wID, dID}, &next); err != nil {
			return err
		}
		var n int64
		return t.queryRow(s.slCount, []any{wID, dID, next, threshold}, &n)
	})
	if err != nil {
		return retries, fmt.Errorf("stock-level (w %d, d %d): %w", wID, dID, err)
	}
	return retries, nil
}
