package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// worker executes the pipelined profile's transactions. Each executor
// goroutine owns one: its
// random stream and scratch buffers are not shared, so the run phase
// needs no locks besides the histograms'.
type worker struct {
	rng         *Rand
	constants   Constants // C-Run (clause 2.1.6)
	warehouses  int       // W: remote warehouses are drawn from 0..W-1
	retryPolicy RetryPolicy
	rwBegin     string // BEGIN statements matching rwOptions and roOptions, for pipelined transactions
	roBegin     string
	stockSQL    [11]string
	// indexPlans: the run is SERIALIZABLE on PostgreSQL, where a plan's
	// access path decides its predicate locks' granularity, so read-write
	// transactions ask for index scans (indexPlansSQL; issue 22).
	indexPlans bool
	txn        TxnType // the transaction exec runs, for retry's cost counters
	cnt        *atomic.Pointer[counters]

	no        newOrderScratch
	prices    []float64
	priceIDs  []int32
	ids       []int32
	lastTotal float64 // New-Order's displayed total, kept so it is computed
}

// stockSQLs are every worker's stock queries: strings shared, not
// formatted again for each of a 100k host's 200,070 executors.
var stockSQLs = noStockSQL()

func newWorker(rng *Rand, c Constants, warehouses int, rp RetryPolicy, rw, ro pgx.TxOptions, cnt *atomic.Pointer[counters]) *worker {
	return &worker{
		rng: rng, constants: c, warehouses: warehouses, retryPolicy: rp.normalize(),
		rwBegin: BeginSQL(rw), roBegin: BeginSQL(ro), stockSQL: stockSQLs, cnt: cnt,
	}
}

func (w *worker) counters() *counters { return w.cnt.Load() }

// otherWarehouse draws a warehouse other than home uniformly from the W
// warehouses 0..W-1 (clauses 2.4.1.5.2, 2.5.1.2). Requires W > 1.
func (w *worker) otherWarehouse(home int32) int32 {
	x := int32(w.rng.Int(0, w.warehouses-2))
	if x >= home {
		x++
	}
	return x
}

// Exec runs one transaction of type t for a terminal at home: worker is
// the pipelined profile's Executor.
func (w *worker) Exec(ctx context.Context, db Pool, t TxnType, home Home) (retries int, err error) {
	w.txn = t
	switch t {
	case NewOrderTxn:
		return w.newOrder(ctx, db, home)
	case PaymentTxn:
		return w.payment(ctx, db, home)
	case OrderStatusTxn:
		return w.orderStatus(ctx, db, home)
	case DeliveryTxn:
		return w.delivery(ctx, db, home)
	case StockLevelTxn:
		return w.stockLevel(ctx, db, home)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
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
// SERIALIZABLE run on PostgreSQL (issue 22). Under SSI a sequential scan
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
// of its own for the ROLLBACK (issue 30: at repeatable read one
// transaction in five was retried). A retry after a backoff sleeps
// without a connection, so a later failure rolls back at once.
func (w *worker) inPipe(ctx context.Context, db Pool, begin string, fn func(*pipeTx) error) (int, error) {
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
			if attempts == 1 && Retryable(err) && !w.retryPolicy.None && !c.IsClosed() {
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
// (issue 22). Statements prepared by name are never invalidated so.
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

// counters are the run's tallies for the audit (clause 9.2). They are
// swapped for a fresh set at the end of the ramp, so only the measurement
// interval is audited.
type counters struct {
	done, errors, retries [numTxnTypes]atomic.Int64
	gaveUp                [numTxnTypes]atomic.Int64 // errors that are exhausted retry budgets
	// What retries cost, in nanoseconds: the failed attempts' time and
	// the backoff sleeps (both inside the retried transactions' latency).
	retryWork, retryBackoff [numTxnTypes]atomic.Int64

	noRollbacks, noLines, noRemoteLines atomic.Int64
	noOLCnt                             [16]atomic.Int64 // by O_OL_CNT, 5..15
	payRemote, payByName, osByName      atomic.Int64
	delSkipped                          atomic.Int64 // districts skipped by Delivery
	remoteLineW, remotePayW             bitset       // warehouses used remotely
	homeW                               bitset       // home warehouses of the counted New-Orders and Payments
}

// newOrder records a finished New-Order's audit figures (clause 9.2.2.5):
// its lines, a rollback, and the supplying warehouse of each remote line
// (supply(i) is line i's). Both load profiles count through it.
func (c *counters) newOrder(home int32, lines int, rollback bool, supply func(i int) int32) {
	c.homeW.set(int(home))
	c.noLines.Add(int64(lines))
	c.noOLCnt[lines].Add(1)
	if rollback {
		c.noRollbacks.Add(1)
	}
	for i := range lines {
		if s := supply(i); s != home {
			c.noRemoteLines.Add(1)
			c.remoteLineW.set(int(s))
		}
	}
}

// payment records a finished Payment's audit figures (clause 9.2.2.5): a
// terminal at home paid for a customer of warehouse customerW, selected
// by last name or not. Every load profile counts through it.
func (c *counters) payment(home, customerW int32, byName bool) {
	c.homeW.set(int(home))
	if customerW != home {
		c.payRemote.Add(1)
		c.remotePayW.set(int(customerW))
	}
	if byName {
		c.payByName.Add(1)
	}
}

func newCounters(warehouses int) *counters {
	return &counters{remoteLineW: newBitset(warehouses + 1), remotePayW: newBitset(warehouses + 1), homeW: newBitset(warehouses + 1)}
}

// bitset records which warehouses were used; atomic so executors set bits
// without a lock.
type bitset []atomic.Uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set reads before it writes: every New-Order and Payment sets its home's
// bit, and a load leaves the shared word in every core's cache where an
// atomic OR would take it for itself each time.
func (b bitset) set(i int) {
	if bit := uint64(1) << (uint(i) % 64); b[i/64].Load()&bit == 0 {
		b[i/64].Or(bit)
	}
}

func (b bitset) has(i int) bool { return b[i/64].Load()&(1<<(uint(i)%64)) != 0 }

func (b bitset) count() int {
	n := 0
	for i := range b {
		n += bits.OnesCount64(b[i].Load())
	}
	return n
}
