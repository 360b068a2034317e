package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Order-Status's profile (clause 2.6.2.2): read-only, always the home
// warehouse (clause 2.6.1.1).
const (
	osByNameSQL   = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first`
	osCustomerSQL = `SELECT c_balance, c_first, c_middle, c_last FROM customer
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	// The customer's most recent order: the largest O_ID.
	osOrderSQL = `SELECT o_id, o_entry_d, o_carrier_id FROM "order"
WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	osLinesSQL = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
)

// orderStatus runs clause 2.6.2 in a read-only transaction, so that the
// customer, order and lines come from one snapshot.
func (w *worker) orderStatus(ctx context.Context, db txBeginner, home warehouseDistrict) (retries int, err error) {
	r := w.rng
	wID, dID := home.wID, int32(r.Int(1, 10)) // 2.6.1.2
	var cID int32
	var cLast string
	byName := r.Int(1, 100) <= 60 // 2.6.1.2: 60% by last name
	if byName {
		cLast = r.LastNameRun(w.constants)
	} else {
		cID = int32(r.CustomerID(w.constants))
	}
	retries, err = w.inTx(ctx, db, w.roOptions, func(tx pgx.Tx) error {
		id := cID
		if byName {
			var err error
			if id, err = w.customerByName(ctx, tx, osByNameSQL, wID, dID, cLast); err != nil {
				return err
			}
		}
		var balance float64
		var first, middle, last string
		if err := tx.QueryRow(ctx, osCustomerSQL, wID, dID, id).Scan(&balance, &first, &middle, &last); err != nil {
			return fmt.Errorf("customer %d: %w", id, err)
		}
		var oID int32
		var entry time.Time
		var carrier *int32
		err := tx.QueryRow(ctx, osOrderSQL, wID, dID, id).Scan(&oID, &entry, &carrier)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // a customer may have no order yet; nothing to list
		}
		if err != nil {
			return fmt.Errorf("last order of customer %d: %w", id, err)
		}
		rows, err := tx.Query(ctx, osLinesSQL, wID, dID, oID)
		if err != nil {
			return fmt.Errorf("lines of order %d: %w", oID, err)
		}
		var item, supply, qty int32
		var amount float64
		var delivered *time.Time
		if _, err := pgx.ForEachRow(rows, []any{&item, &supply, &qty, &amount, &delivered}, func() error { return nil }); err != nil {
			return fmt.Errorf("lines of order %d: %w", oID, err)
		}
		return nil
	})
	if err != nil {
		return retries, fmt.Errorf("order-status (w %d, d %d): %w", wID, dID, err)
	}
	if byName {
		w.counters().osByName.Add(1)
	}
	return retries, nil
}
