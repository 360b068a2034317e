package pipelined

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// Order-Status's profile (clause 2.6.2.2): read-only, always the home
// warehouse (clause 2.6.1.1), one round trip: the customer, by C_ID or
// by last name (the one at position ceil(n/2) by C_FIRST, i.e. offset
// (n-1)/2, chosen by the database), then the customer's most recent
// order (the largest O_ID) with its lines in one statement, so that the
// order and its lines come from one snapshot at any isolation level.
// The by-name choice is made again by the second statement: C_LAST and
// C_FIRST never change, so both find the same customer.
const (
	osCustomerHead = `SELECT c_id, c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = `
	osCustomerSQL       = osCustomerHead + `$3`
	osCustomerByNameSQL = osCustomerHead + customerByNameExpr
	osOrderLinesHead    = `SELECT o.o_id, o.o_entry_d, o.o_carrier_id,
ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount, ol.ol_delivery_d
FROM (SELECT o_id, o_entry_d, o_carrier_id FROM "order"
WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = `
	osOrderLinesTail = ` ORDER BY o_id DESC LIMIT 1) AS o
LEFT JOIN order_line AS ol ON ol.ol_w_id = $1 AND ol.ol_d_id = $2 AND ol.ol_o_id = o.o_id`
	osOrderLinesSQL       = osOrderLinesHead + `$3` + osOrderLinesTail
	osOrderLinesByNameSQL = osOrderLinesHead + customerByNameExpr + osOrderLinesTail
)

// orderStatus runs clause 2.6.2 in a read-only transaction.
func (w *worker) orderStatus(ctx context.Context, db tpcc.Pool, home tpcc.Home) (retries int, err error) {
	in := w.draw.OrderStatus(home)
	wID, dID := in.WID, in.DID
	var customer any = in.CID
	customerSQL, linesSQL := osCustomerSQL, osOrderLinesSQL
	byName := in.CLast != ""
	if byName {
		customer = in.CLast
		customerSQL, linesSQL = osCustomerByNameSQL, osOrderLinesByNameSQL
	}
	retries, err = w.inPipe(ctx, db, w.roBegin, func(tx *pipeTx) error {
		var id int32
		var balance float64
		var first, middle, last string
		var b pgx.Batch
		b.Queue(customerSQL, wID, dID, customer).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&id, &balance, &first, &middle, &last)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("no customer %v", customer)
			}
			return err
		})
		b.Queue(linesSQL, wID, dID, customer).Query(func(rows pgx.Rows) error {
			// No row: the customer has no order yet. An order's lines
			// are its rows (one with NULL line columns if it has none).
			var oID int32
			var entry time.Time
			var carrier, item, supply, qty *int32
			var amount *float64
			var delivered *time.Time
			_, err := pgx.ForEachRow(rows, []any{&oID, &entry, &carrier, &item, &supply, &qty, &amount, &delivered}, func() error { return nil })
			return err
		})
		if err := tx.send(ctx, &b, true); err != nil {
			return fmt.Errorf("customer %v, last order and lines: %w", customer, err)
		}
		return nil
	})
	if err != nil {
		return retries, fmt.Errorf("order-status (w %d, d %d): %w", wID, dID, err)
	}
	w.tally.OrderStatus(byName)
	return retries, nil
}
