package tpcc

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// functionsSQL creates the five transactions as PL/pgSQL functions.
//
//go:embed functions.sql
var functionsSQL string

// fnNames are the functions functions.sql creates, one per transaction.
var fnNames = [numTxnTypes]string{
	NewOrderTxn:    "benchrig_new_order",
	PaymentTxn:     "benchrig_payment",
	OrderStatusTxn: "benchrig_order_status",
	DeliveryTxn:    "benchrig_delivery",
	StockLevelTxn:  "benchrig_stock_level",
}

// fnVersion marks the installed functions (their COMMENT) with the
// file's hash, so that a run finds functions from another benchrig and
// says to re-run init instead of calling them.
var fnVersion = func() string {
	h := sha256.Sum256([]byte(functionsSQL))
	return "benchrig " + hex.EncodeToString(h[:6])
}()

// fnInstallLock serialises concurrent inits' CREATE OR REPLACE FUNCTION
// (every workload host may run init at once; PostgreSQL fails a
// concurrent replacement of one function with "tuple concurrently
// updated"). Any constant key: the lock lasts the install's transaction.
const fnInstallLock = 0x62656e6368 // "bench"

// fnInstallSQL is the install as one simple-protocol query: its statements
// run as one implicit transaction, so the advisory lock is held to the end
// and a failed install leaves the previous functions.
func fnInstallSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT pg_advisory_xact_lock(%d);\n", fnInstallLock)
	b.WriteString(functionsSQL)
	for _, n := range fnNames {
		// fnVersion is hex of our own hash: no quoting needed.
		fmt.Fprintf(&b, "COMMENT ON FUNCTION %s IS '%s';\n", n, fnVersion)
	}
	return b.String()
}

// InstallFunctions creates or replaces the functions profile's functions
// (PostgreSQL; init calls it in its schema step).
func InstallFunctions(ctx context.Context, db Execer) error {
	if _, err := db.Exec(ctx, fnInstallSQL()); err != nil {
		return fmt.Errorf("install the functions profile's functions: %w", err)
	}
	return nil
}

// checkFunctions fails unless all five functions are installed with this
// build's version.
func checkFunctions(ctx context.Context, q Querier) error {
	var n int
	err := q.QueryRow(ctx, `SELECT count(DISTINCT p.proname) FROM pg_proc AS p
JOIN pg_namespace AS ns ON ns.oid = p.pronamespace AND ns.nspname = ANY(current_schemas(false))
WHERE p.proname = ANY($1::TEXT[]) AND obj_description(p.oid, 'pg_proc') = $2`, fnNames[:], fnVersion).Scan(&n)
	if err != nil {
		return fmt.Errorf("functions profile: look up its functions: %w", err)
	}
	if n != len(fnNames) {
		return fmt.Errorf("functions profile: %d of its %d functions (%s) are installed in this build's version (%s); run `benchrig tpcc init` again with the same flags (it is idempotent) to install them",
			n, len(fnNames), strings.Join(fnNames[:], ", "), fnVersion)
	}
	return nil
}

// The calls, one statement each: the transaction is the call's implicit
// one, at the session's isolation level (fnSession).
const (
	fnNewOrderSQL    = `SELECT order_id, total FROM benchrig_new_order($1, $2, $3, $4, $5, $6)`
	fnPaymentSQL     = `SELECT * FROM benchrig_payment($1, $2, $3, $4, $5, $6, $7)`
	fnOrderStatusSQL = `SELECT * FROM benchrig_order_status($1, $2, $3, $4)`
	fnDeliverySQL    = `SELECT benchrig_delivery($1, $2)`
	fnStockLevelSQL  = `SELECT benchrig_stock_level($1, $2, $3)`
)

// SQLSTATEs functions.sql raises.
const (
	fnRollbackState   = "BR001" // New-Order's unused item (clause 2.4.2.3)
	fnNoCustomerState = "BR002"
)

// functionsProfile is ProfileFunctions: each transaction one call of a
// server-side function, with the pipelined profile's sizing, ramp,
// constants, inputs and retries (a retry is a new call: the failed call's
// implicit transaction rolled back). It lives in this package beside the
// pipelined profile because it draws its inputs with the same worker.
type functionsProfile struct{ pipelinedProfile }

// Functions is the functions profile (tpcc/profile.Choose asks for it
// here, as for Pipelined).
func Functions() LoadProfile { return functionsProfile{} }

func (functionsProfile) Name() Profile { return ProfileFunctions }

// FunctionsRefused refuses the functions profile on a dialect other than
// PostgreSQL, before the run opens its pools.
func FunctionsRefused(p Profile, d Dialect) error {
	if p == ProfileFunctions && d != Postgres {
		return fmt.Errorf("--profile %s calls PL/pgSQL functions, which %s does not run; use %s or %s", ProfileFunctions, d, ProfileWorkload, ProfilePipelined)
	}
	return nil
}

// Warm checks the functions before the run rather than failing its first
// transactions.
func (functionsProfile) Warm(ctx context.Context, pools []*pgxpool.Pool, _ int, _ Dialect) error {
	for _, p := range pools {
		if err := checkFunctions(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// NewExecutor is a worker (the pipelined profile's, for its inputs and
// retries) that calls the functions.
func (functionsProfile) NewExecutor(s Session) Executor {
	w := newWorker(s.Rand, s.Constants, s.Warehouses, s.Retry, s.ReadWrite, s.ReadOnly, s.Tally.cnt)
	w.indexPlans = s.Dialect == Postgres && s.ReadWrite.IsoLevel == pgx.Serializable
	return fnExecutor{w}
}

// fnExecutor runs the functions profile's transactions.
type fnExecutor struct{ w *worker }

func (e fnExecutor) Exec(ctx context.Context, db Pool, t TxnType, home Home) (int, error) {
	w := e.w
	w.txn = t
	switch t {
	case NewOrderTxn:
		return w.fnNewOrder(ctx, db, home)
	case PaymentTxn:
		return w.fnPayment(ctx, db, home)
	case OrderStatusTxn:
		return w.fnOrderStatus(ctx, db, home)
	case DeliveryTxn:
		return w.fnDelivery(ctx, db, home)
	case StockLevelTxn:
		return w.fnStockLevel(ctx, db, home)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
}

// fnSessionKey marks a connection fnSession has set up.
const fnSessionKey = "benchrig.tpcc.functions"

// fnSession sets a connection up once: the run's isolation level becomes
// the session's (each call is its own transaction, so no BEGIN travels),
// a SERIALIZABLE run on PostgreSQL plans index scans (indexPlansSQL's
// reason, issue 22; the functions' plans are made under it), and the five
// calls are prepared by name, which pgx never forgets when a call fails
// (its statement cache would re-prepare after every 1% rollback).
func (w *worker) fnSession(ctx context.Context, c *pgx.Conn) error {
	data := c.PgConn().CustomData()
	if data[fnSessionKey] != nil {
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
	if modes := strings.TrimPrefix(w.rwBegin, "BEGIN"); modes != "" {
		set = append(set, "SET SESSION CHARACTERISTICS AS TRANSACTION"+modes)
	}
	if w.indexPlans {
		set = append(set, "SET enable_seqscan = off")
	}
	for _, s := range set {
		if _, err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	if c.Config().DefaultQueryExecMode == pgx.QueryExecModeCacheStatement {
		for _, s := range [...]string{fnNewOrderSQL, fnPaymentSQL, fnOrderStatusSQL, fnDeliverySQL, fnStockLevelSQL} {
			if _, err := c.Prepare(ctx, s, s); err != nil {
				return fmt.Errorf("prepare %.40q...: %w", s, err)
			}
		}
	}
	data[fnSessionKey] = true
	return nil
}

// fnCall runs call on a set-up pooled connection, retrying serialization
// failures and deadlocks as the pipelined profile does (w.retry).
func (w *worker) fnCall(ctx context.Context, db Pool, call func(c *pgx.Conn) error) (int, error) {
	return w.retry(ctx, func() error {
		c, release, err := db.AcquireConn(ctx)
		if err != nil {
			return fmt.Errorf("acquire connection: %w", err)
		}
		defer release()
		if err := w.fnSession(ctx, c); err != nil {
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

// fnNewOrder is clause 2.4.2 in one call. The 1% rollback comes back as
// SQLSTATE BR001 and counts as a completed New-Order, as in newOrder.
func (w *worker) fnNewOrder(ctx context.Context, db Pool, home Home) (int, error) {
	s := &w.no
	in := &s.in
	w.drawNewOrder(in, home)
	s.itemI, s.supplyW, s.qty = s.itemI[:0], s.supplyW[:0], s.qty[:0]
	for _, l := range in.lines {
		s.itemI = append(s.itemI, l.itemID)
		s.supplyW = append(s.supplyW, l.supplyWID)
		s.qty = append(s.qty, l.quantity)
	}
	retries, err := w.fnCall(ctx, db, func(c *pgx.Conn) error {
		var oID int32
		var total float64
		err := c.QueryRow(ctx, fnNewOrderSQL, in.wID, in.dID, in.cID, s.itemI, s.supplyW, s.qty).Scan(&oID, &total)
		if sqlState(err) == fnRollbackState {
			if in.rollback {
				return ErrNewOrderRollback
			}
			return fmt.Errorf("items not found (is the item table loaded?): %w", err)
		}
		if err != nil {
			return err
		}
		w.lastTotal = total
		return nil
	})
	if err != nil && !errors.Is(err, ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.wID, in.dID, in.cID, err)
	}
	if err == nil && in.rollback {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): committed with the unused item %d", in.wID, in.dID, in.cID, unusedItemID)
	}
	w.counters().newOrder(in.wID, len(in.lines), in.rollback, func(i int) int32 { return in.lines[i].supplyWID })
	return retries, nil
}

// fnPaymentOut is Payment's output screen (clause 2.5.3.3), as the
// function returns it.
type fnPaymentOut struct {
	cID                                                   int32
	wS1, wS2, wCity, wState, wZip                         string
	dS1, dS2, dCity, dState, dZip                         string
	cFirst, cMiddle, cLast, cS1, cS2, cCity, cState, cZip string
	cPhone                                                string
	cSince                                                time.Time
	cCredit                                               string
	cCreditLim, cDiscount, cBalance                       float64
	cData                                                 string
}

// fnPayment is clause 2.5.2 in one call.
func (w *worker) fnPayment(ctx context.Context, db Pool, home Home) (int, error) {
	in := w.drawPayment(home)
	var o fnPaymentOut
	retries, err := w.fnCall(ctx, db, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, fnPaymentSQL, in.wID, in.dID, in.cWID, in.cDID, in.cID, in.cLast, in.cents).Scan(
			&o.cID, &o.wS1, &o.wS2, &o.wCity, &o.wState, &o.wZip, &o.dS1, &o.dS2, &o.dCity, &o.dState, &o.dZip,
			&o.cFirst, &o.cMiddle, &o.cLast, &o.cS1, &o.cS2, &o.cCity, &o.cState, &o.cZip, &o.cPhone,
			&o.cSince, &o.cCredit, &o.cCreditLim, &o.cDiscount, &o.cBalance, &o.cData)
	})
	if err != nil {
		return retries, fmt.Errorf("payment (w %d, d %d): %w", in.wID, in.dID, err)
	}
	w.countPayment(in)
	return retries, nil
}

// fnOrderStatus is clause 2.6.2 in one call: a row per line of the
// customer's latest order.
func (w *worker) fnOrderStatus(ctx context.Context, db Pool, home Home) (int, error) {
	in := w.drawOrderStatus(home)
	retries, err := w.fnCall(ctx, db, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, fnOrderStatusSQL, in.wID, in.dID, in.cID, in.cLast)
		if err != nil {
			return err
		}
		var cID int32
		var balance float64
		var first, middle, last string
		var oID, carrier, item, supply, qty *int32
		var entry, delivered *time.Time
		var amount *float64
		n, err := pgx.ForEachRow(rows, []any{&cID, &balance, &first, &middle, &last, &oID, &entry, &carrier,
			&item, &supply, &qty, &amount, &delivered}, func() error { return nil })
		if err == nil && n.RowsAffected() == 0 {
			err = fmt.Errorf("customer %d not found", in.cID)
		}
		return err
	})
	if err != nil {
		return retries, fmt.Errorf("order-status (w %d, d %d): %w", in.wID, in.dID, err)
	}
	if in.cLast != "" {
		w.counters().osByName.Add(1)
	}
	return retries, nil
}

// fnDelivery is clause 2.7.4 in one call for all ten districts.
func (w *worker) fnDelivery(ctx context.Context, db Pool, home Home) (int, error) {
	carrier := w.drawDelivery()
	var skipped int32
	retries, err := w.fnCall(ctx, db, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, fnDeliverySQL, home.W, carrier).Scan(&skipped)
	})
	if err != nil {
		return retries, fmt.Errorf("delivery (w %d): %w", home.W, err)
	}
	if skipped > 0 {
		// Clause 2.7.2.3, as delivery.go.
		w.counters().delSkipped.Add(int64(skipped))
	}
	return retries, nil
}

// fnStockLevel is clause 2.8.2 in one call.
func (w *worker) fnStockLevel(ctx context.Context, db Pool, home Home) (int, error) {
	threshold := w.drawStockLevel()
	retries, err := w.fnCall(ctx, db, func(c *pgx.Conn) error {
		var n int64
		return c.QueryRow(ctx, fnStockLevelSQL, home.W, home.D, threshold).Scan(&n)
	})
	if err != nil {
		return retries, fmt.Errorf("stock-level (w %d, d %d): %w", home.W, home.D, err)
	}
	return retries, nil
}
