package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// Order-Status's fixed statements (prepared at warm-up).
const (
	wlOSSelectByID   = `SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	wlOSSelectByLast = `SELECT c_id, c_balance, c_first, c_middle FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first ASC`
	wlOSSelectOrder  = `SELECT o_id, o_entry_d, o_carrier_id FROM "order" WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1`
	wlOSSelectItems  = `SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
)

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
