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
// customer, order and lines come from one snapshot: 2 round trips by
// C_ID, 3 by last name.
func (w *worker) orderStatus(ctx context.Context, db Pool, home Home) (retries int, err error) {
	r := w.rng
	wID, dID := home.W, int32(r.Int(1, 10)) // 2.6.1.2
	var cID int32
	var cLast string
	byName := r.Int(1, 100) <= 60 // 2.6.1.2: 60% by last name
	if byName {
		cLast = r.LastNameRun(w.constants)
	} else {
		cID = int32(r.CustomerID(w.constants))
	}
	retries, err = w.inPipe(ctx, db, w.roBegin, func(tx *pipeTx) error {
		id := cID
		if byName {
			var b0 pgx.Batch
			ids := w.ids[:0]
			b0.Queue(osByNameSQL, wID, dID, cLast).Query(func(rows pgx.Rows) error {
				var id int32
				_, err := pgx.ForEachRow(rows, []any{&id}, func() error { ids = append(ids, id); return nil })
				return err
			})
			if err := tx.send(ctx, &b0, false); err != nil {
				return fmt.Errorf("customers named %s: %w", cLast, err)
			}
			w.ids = ids
			if len(ids) == 0 {
				return fmt.Errorf("no customer named %s", cLast)
			}
			id = ids[(len(ids)-1)/2] // position ceil(n/2), clause 2.6.2.2
		}
		var balance float64
		var first, middle, last string
		var oID int32
		var entry time.Time
		var carrier *int32
		hasOrder := true
		var b pgx.Batch
		b.Queue(osCustomerSQL, wID, dID, id).QueryRow(func(row pgx.Row) error {
			return row.Scan(&balance, &first, &middle, &last)
		})
		b.Queue(osOrderSQL, wID, dID, id).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&oID, &entry, &carrier)
			if errors.Is(err, pgx.ErrNoRows) {
				hasOrder = false // a customer may have no order yet
				return nil
			}
			return err
		})
		if err := tx.send(ctx, &b, false); err != nil {
			return fmt.Errorf("customer %d and last order: %w", id, err)
		}
		var b2 pgx.Batch
		if hasOrder {
			b2.Queue(osLinesSQL, wID, dID, oID).Query(func(rows pgx.Rows) error {
				var item, supply, qty int32
				var amount float64
				var delivered *time.Time
				_, err := pgx.ForEachRow(rows, []any{&item, &supply, &qty, &amount, &delivered}, func() error { return nil })
				return err
			})
		}
		if err := tx.send(ctx, &b2, true); err != nil {
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
