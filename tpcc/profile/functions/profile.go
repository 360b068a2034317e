package functions

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc"
)

// Profile is tpcc.ProfileFunctions: each transaction one call of a
// server-side function (functions.sql), with the spec's pacing and the
// core's inputs and retries, as the pipelined profile has them (a retry
// is a new call: the failed call's implicit transaction rolled back).
type Profile struct{ tpcc.SpecPacing }

// New is the functions profile for a run on dialect d: refused on any
// but PostgreSQL, before the run opens its pools.
func New(d tpcc.Dialect) (Profile, error) {
	if d != tpcc.Postgres {
		return Profile{}, fmt.Errorf("--profile %s calls PL/pgSQL functions, which %s does not run; use %s or %s",
			tpcc.ProfileFunctions, d, tpcc.ProfileWorkload, tpcc.ProfilePipelined)
	}
	return Profile{}, nil
}

// Name is tpcc.ProfileFunctions.
func (Profile) Name() tpcc.Profile { return tpcc.ProfileFunctions }

// Warm checks the functions before the run rather than failing its first
// transactions.
func (Profile) Warm(ctx context.Context, pools []*pgxpool.Pool, _ int, _ tpcc.Dialect) error {
	for _, p := range pools {
		if err := check(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// NewExecutor is an executor that calls the functions.
func (Profile) NewExecutor(s tpcc.Session) tpcc.Executor {
	return &executor{
		draw: s.Inputs(), tally: s.Tally, retryPolicy: s.Retry.WithDefaults(),
		rwBegin: tpcc.BeginSQL(s.ReadWrite), indexPlans: s.IndexPlans(),
	}
}

// executor runs the functions profile's transactions on one executor
// goroutine: its random stream and scratch buffers are its own.
type executor struct {
	draw        tpcc.Inputs
	tally       tpcc.Tally
	retryPolicy tpcc.RetryPolicy
	rwBegin     string       // the run's BEGIN, whose modes become the session's
	indexPlans  bool         // tpcc.Session.IndexPlans
	txn         tpcc.TxnType // the transaction Exec runs, for the retries' cost

	no                  tpcc.NewOrderInput
	itemI, supplyW, qty []int32 // New-Order's lines, the call's arrays
	lastTotal           float64 // New-Order's displayed total, kept so it is computed
}

// Exec runs one transaction of type t for a terminal at home.
func (e *executor) Exec(ctx context.Context, db tpcc.Pool, t tpcc.TxnType, home tpcc.Home) (int, error) {
	e.txn = t
	switch t {
	case tpcc.NewOrderTxn:
		return e.newOrder(ctx, db, home)
	case tpcc.PaymentTxn:
		return e.payment(ctx, db, home)
	case tpcc.OrderStatusTxn:
		return e.orderStatus(ctx, db, home)
	case tpcc.DeliveryTxn:
		return e.delivery(ctx, db, home)
	case tpcc.StockLevelTxn:
		return e.stockLevel(ctx, db, home)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
}

// The calls, one statement each: the transaction is the call's implicit
// one, at the session's isolation level (setUp).
const (
	newOrderSQL    = `SELECT order_id, total FROM benchrig_new_order($1, $2, $3, $4, $5, $6)`
	paymentSQL     = `SELECT * FROM benchrig_payment($1, $2, $3, $4, $5, $6, $7)`
	orderStatusSQL = `SELECT * FROM benchrig_order_status($1, $2, $3, $4)`
	deliverySQL    = `SELECT benchrig_delivery($1, $2)`
	stockLevelSQL  = `SELECT benchrig_stock_level($1, $2, $3)`
)

// SQLSTATEs functions.sql raises.
const (
	rollbackState   = "BR001" // New-Order's unused item (clause 2.4.2.3)
	noCustomerState = "BR002"
)

// sessionKey marks a connection setUp has set up.
const sessionKey = "benchrig.tpcc.functions"

// setUp sets a connection up once: the run's isolation level becomes
// the session's (each call is its own transaction, so no BEGIN travels),
// a SERIALIZABLE run on PostgreSQL plans index scans (indexPlansSQL's
// reason; the functions' plans are made under it), and the five
// calls are prepared by name, which pgx never forgets when a call fails
// (its statement cache would re-prepare after every 1% rollback).
func (e *executor) setUp(ctx context.Context, c *pgx.Conn) error {
	data := c.PgConn().CustomData()
	if data[sessionKey] != nil {
		return nil
	}
	// Generic plans from the first call: PostgreSQL otherwise plans the
	// functions' statements afresh for their first five calls, and for
	// good when a generic plan's estimate looks worse than the custom
	// ones', which for the CTE statements costs more than executing them.
	// Every statement is a lookup or a short range on a key, so one plan
	// fits all inputs (the plans subtest reads them).
	set := []string{"SET plan_cache_mode = force_generic_plan"}
	// rwBegin is "BEGIN" and the run's transaction modes, which SET
	// SESSION CHARACTERISTICS takes in the same grammar.
	if modes := strings.TrimPrefix(e.rwBegin, "BEGIN"); modes != "" {
		set = append(set, "SET SESSION CHARACTERISTICS AS TRANSACTION"+modes)
	}
	if e.indexPlans {
		set = append(set, "SET enable_seqscan = off")
	}
	for _, s := range set {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if c.Config().DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		for _, s := range [...]string{newOrderSQL, paymentSQL, orderStatusSQL, deliverySQL, stockLevelSQL} {
			if _, err := c.Prepare(ctx, s, s); err != nil {
				return fmt.Errorf("prepare %.40q...: %w", s, err)
			}
		}
	}
	data[sessionKey] = true
	return nil
}

// call runs call on a set-up pooled connection, retrying serialization
// failures and deadlocks as the pipelined profile does (e.retry).
func (e *executor) call(ctx context.Context, db tpcc.Pool, call func(c *pgx.Conn) error) (int, error) {
	return e.retryPolicy.Retry(ctx, e.txn, e.tally, func() error {
		c, release, err := db.AcquireConn(ctx)
		if err != nil {
			return fmt.Errorf("acquire connection: %w", err)
		}
		defer release()
		if err := e.setUp(ctx, c); err != nil {
			return err
		}
		return call(c)
	})
}

// sqlState is err's SQLSTATE, "" if it is not a server error.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
