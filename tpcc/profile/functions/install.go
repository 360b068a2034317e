package functions

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/benchrig/benchrig/tpcc"
)

// functionsSQL creates the five transactions as PL/pgSQL functions.
//
//go:embed functions.sql
var functionsSQL string

// functionNames are the functions functions.sql creates, one per transaction.
var functionNames = [tpcc.NumTxnTypes]string{
	tpcc.NewOrderTxn:    "benchrig_new_order",
	tpcc.PaymentTxn:     "benchrig_payment",
	tpcc.OrderStatusTxn: "benchrig_order_status",
	tpcc.DeliveryTxn:    "benchrig_delivery",
	tpcc.StockLevelTxn:  "benchrig_stock_level",
}

// version marks the installed functions (their COMMENT) with the
// file's hash, so that a run finds functions from another benchrig and
// says to re-run init instead of calling them.
var version = func() string {
	h := sha256.Sum256([]byte(functionsSQL))
	return "benchrig " + hex.EncodeToString(h[:6])
}()

// installLock serialises concurrent inits' CREATE OR REPLACE FUNCTION
// (every workload host may run init at once; PostgreSQL fails a
// concurrent replacement of one function with "tuple concurrently
// updated"). Any constant key: the lock lasts the install's transaction.
const installLock = 0x62656e6368 // "bench"

// installSQL is the install as one simple-protocol query: its statements
// run as one implicit transaction, so the advisory lock is held to the end
// and a failed install leaves the previous functions.
func installSQL() string {
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT pg_advisory_xact_lock(%d);\n", installLock)
	b.WriteString(functionsSQL)
	for _, n := range functionNames {
		// version is hex of our own hash: no quoting needed.
		fmt.Fprintf(&b, "COMMENT ON FUNCTION %s IS '%s';\n", n, version)
	}
	return b.String()
}

// Install creates or replaces the functions profile's functions
// (PostgreSQL; init calls it in its schema step).
func Install(ctx context.Context, db tpcc.Execer) error {
	if _, err := db.Exec(ctx, installSQL()); err != nil {
		return fmt.Errorf("install the functions profile's functions: %w", err)
	}
	return nil
}

// check fails unless all five functions are installed with this
// build's version.
func check(ctx context.Context, q tpcc.Querier) error {
	var n int
	err := q.QueryRow(ctx, `SELECT count(DISTINCT p.proname) FROM pg_proc AS p
JOIN pg_namespace AS ns ON ns.oid = p.pronamespace AND ns.nspname = ANY(current_schemas(false))
WHERE p.proname = ANY($1::TEXT[]) AND obj_description(p.oid, 'pg_proc') = $2`, functionNames[:], version).Scan(&n)
	if err != nil {
		return fmt.Errorf("functions profile: look up its functions: %w", err)
	}
	if n != len(functionNames) {
		return fmt.Errorf("functions profile: %d of its %d functions (%s) are installed in this build's version (%s); run `benchrig tpcc init` again with the same flags (it is idempotent) to install them",
			n, len(functionNames), strings.Join(functionNames[:], ", "), version)
	}
	return nil
}
