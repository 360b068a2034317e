package pipelined

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc"
)

// worker executes the pipelined profile's transactions. Each executor
// goroutine owns one: its
// random stream and scratch buffers are not shared, so the run phase
// needs no locks besides the histograms'.
type worker struct {
	draw        tpcc.Inputs
	tally       tpcc.Tally
	retryPolicy tpcc.RetryPolicy
	rwBegin     string // BEGIN statements matching rwOptions and roOptions, for pipelined transactions
	roBegin     string
	stockSQL    [11]string
	// indexPlans: read-write transactions ask for index scans
	// (indexPlansSQL, Session.IndexPlans).
	indexPlans bool
	txn        tpcc.TxnType // the transaction exec runs, for retry's cost counters

	no        newOrderScratch
	prices    []float64
	priceIDs  []int32
	ids       []int32
	lastTotal float64 // New-Order's displayed total, kept so it is computed
}

// stockSQLs are every worker's stock queries: strings shared, not
// formatted again for each of a 100k host's 200,070 executors.
var stockSQLs = noStockSQL()

func newWorker(s tpcc.Session) *worker {
	return &worker{
		draw: s.Inputs(), tally: s.Tally, retryPolicy: s.Retry.WithDefaults(),
		rwBegin: tpcc.BeginSQL(s.ReadWrite), roBegin: tpcc.BeginSQL(s.ReadOnly), stockSQL: stockSQLs,
		indexPlans: s.IndexPlans(),
	}
}

// Exec runs one transaction of type t for a terminal at home: worker is
// the pipelined profile's Executor.
func (w *worker) Exec(ctx context.Context, db tpcc.Pool, t tpcc.TxnType, home tpcc.Home) (retries int, err error) {
	w.txn = t
	switch t {
	case tpcc.NewOrderTxn:
		return w.newOrder(ctx, db, home)
	case tpcc.PaymentTxn:
		return w.payment(ctx, db, home)
	case tpcc.OrderStatusTxn:
		return w.orderStatus(ctx, db, home)
	case tpcc.DeliveryTxn:
		return w.delivery(ctx, db, home)
	case tpcc.StockLevelTxn:
		return w.stockLevel(ctx, db, home)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
}

// retry is RetryPolicy.Retry with the worker's policy, for the
// transaction type being run (w.txn).
func (w *worker) retry(ctx context.Context, fn func() error) (retries int, err error) {
	return w.retryPolicy.Retry(ctx, w.txn, w.tally, fn)
}

// pipeTx is a transaction whose BEGIN travels with its first batch and
// whose COMMIT travels with its last, so that a transaction costs as many
// round trips as it has dependent steps (New-Order: 2, Payment by C_ID: 1)
// instead of two more for BEGIN and COMMIT. Client and server CPU per
// transaction drop with the round trips.
type pipeTx struct {
	conn  *pgx.Conn
	begin string
	setup string // sent after BEGIN when not empty (indexPlansSQL)
	open  bool   // BEGIN sent, COMMIT not yet acknowledged
	// rollback: the connection is in the previous attempt's aborted
	// transaction; the first batch ends it before its BEGIN.
	rollback bool
}

// indexPlansSQL is sent after BEGIN by the read-write transactions of a
// SERIALIZABLE run on PostgreSQL. Under SSI a sequential scan
// takes a relation-level SIRead lock ("A sequential scan will always
// necessitate a relation-level predicate lock", PostgreSQL's chapter
// 13.2.3, which advises encouraging index scans), and on 4 warehouses
// the planner reads warehouse (1 page) and district (1 page) that way:
// every transaction reading a row of one then conflicted with every
// transaction writing any row of it, and the run fell into storms of
// serialization failures. The writes of those rows are upserts on their
// keys (payment.go, new_order.go), which take the row through the unique
// index without the planner; two reads remain that statement shapes
// cannot reach: New-Order's W_TAX and the foreign-key check PostgreSQL
// itself plans when Payment inserts its HISTORY row (SELECT ... FROM
// district ... FOR KEY SHARE). SET LOCAL scopes the choice to the
// transaction; every statement the five transactions run is a lookup or
// range on a primary key or index, so it changes no other plan.
// TestSerializableLocksRows checks the locks in pg_locks.
const indexPlansSQL = `SET LOCAL enable_seqscan = off`

// send runs b in one round trip, beginning the transaction first if
// needed, and committing after b when commit is set.
func (p *pipeTx) send(ctx context.Context, b *pgx.Batch, commit bool) error {
	var nb pgx.Batch
	nb.QueuedQueries = make([]*pgx.QueuedQuery, 0, len(b.QueuedQueries)+4)
	if p.rollback {
		nb.Queue("ROLLBACK")
		p.rollback = false
	}
	if !p.open {
		nb.Queue(p.begin)
		if p.setup != "" {
			nb.Queue(p.setup)
		}
		p.open = true
	}
	nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
	if commit {
		nb.Queue("COMMIT").Exec(func(ct pgconn.CommandTag) error {
			// An aborted transaction answers COMMIT with ROLLBACK and no
			// error; never count that as committed.
			if ct.String() != "COMMIT" {
				return fmt.Errorf("commit answered %q", ct.String())
			}
			p.open = false
			return nil
		})
	}
	return p.conn.SendBatch(ctx, &nb).Close()
}

// inPipe runs fn in a pipelined transaction on a pooled connection,
// retrying serialization failures. fn must end with a committing send or
// return an error, which rolls back.
//
// A transaction that fails with a serialization failure or a deadlock on
// its first attempt is retried at once (retry.go), so its connection is
// kept, still in the aborted transaction, and the retry's first batch
// carries the ROLLBACK ahead of its BEGIN: the retry costs no round trip
// of its own for the ROLLBACK (at repeatable read one transaction in
// five is retried). A retry after a backoff sleeps
// without a connection, so a later failure rolls back at once.
func (w *worker) inPipe(ctx context.Context, db tpcc.Pool, begin string, fn func(*pipeTx) error) (int, error) {
	var held *pgx.Conn // in an aborted transaction, for the immediate retry
	var heldRelease func()
	attempts := 0
	retries, err := w.retry(ctx, func() error {
		attempts++
		c, release, rollback := held, heldRelease, held != nil
		held, heldRelease = nil, nil
		if c == nil {
			var err error
			if c, release, err = db.AcquireConn(ctx); err != nil {
				return fmt.Errorf("acquire connection: %w", err)
			}
			if err := w.prepare(ctx, c); err != nil {
				release()
				return err
			}
		}
		p := &pipeTx{conn: c, begin: begin, rollback: rollback}
		if w.indexPlans && begin == w.rwBegin {
			p.setup = indexPlansSQL
		}
		err := fn(p)
		if err == nil && p.open {
			err = errors.New("transaction not committed")
		}
		if err != nil && p.open {
			if attempts == 1 && tpcc.Retryable(err) && !w.retryPolicy.None && !c.IsClosed() {
				held, heldRelease = c, release
				return err
			}
			rollbackNow(ctx, c)
		}
		release()
		return err
	})
	if held != nil {
		// retry gave up before the immediate retry (its budget or the
		// run's context).
		rollbackNow(ctx, held)
		heldRelease()
	}
	return retries, err
}

// rollbackNow ends c's open transaction; a connection whose ROLLBACK
// fails is in an unknown state and is closed, so the pool drops it.
func rollbackNow(ctx context.Context, c *pgx.Conn) {
	if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
		_ = c.Close(context.Background())
	}
}

// preparedKey marks a connection whose statements prepare made.
const preparedKey = "benchrig.tpcc.prepared"

// prepare makes every statement of the pipelined transactions a named
// prepared statement of c, once per connection, when c prepares
// statements (--method prepare, pgx's QueryExecModeCacheStatement).
// pgx's statement cache would prepare them on first use too, but it
// forgets every statement of a batch that failed — a serialization
// failure included — and prepares them again on the next attempt: a
// retried transaction paid a Parse/Describe round of all its statements
// on every retry. Statements prepared by name are never invalidated so.
func (w *worker) prepare(ctx context.Context, c *pgx.Conn) error {
	if c.Config().DefaultQueryExecMode != pgx.QueryExecModeCacheStatement {
		return nil
	}
	data := c.PgConn().CustomData()
	if data[preparedKey] != nil {
		return nil
	}
	for _, sql := range w.statements() {
		if _, err := c.Prepare(ctx, sql, sql); err != nil {
			if ctx.Err() != nil || c.IsClosed() {
				return fmt.Errorf("prepare %.40q...: %w", sql, err)
			}
			// A statement the server refuses (a table renamed away)
			// stays with the statement cache: the transaction that sends
			// it reports the error, the other types still run.
			continue
		}
	}
	data[preparedKey] = true
	return nil
}

// statements are the statements the five pipelined transactions send.
func (w *worker) statements() []string {
	s := []string{w.rwBegin, w.roBegin, "COMMIT", "ROLLBACK",
		noDistrictSQL, noCustomerSQL, noItemSQL, noStockUpdateSQL, noOrderSQL,
		payWarehouseDistrictSQL, payCustomerSQL, payCustomerByNameSQL,
		osCustomerSQL, osCustomerByNameSQL, osOrderLinesSQL, osOrderLinesByNameSQL,
		delOldestSQL, delNewOrderSQL, delOrderSQL, delLinesSQL, delCustomerSQL,
		stockLevelSQL}
	s = append(s, w.stockSQL[1:]...)
	if w.indexPlans {
		s = append(s, indexPlansSQL)
	}
	return s
}
