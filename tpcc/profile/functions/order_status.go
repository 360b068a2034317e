package functions

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// orderStatus is clause 2.6.2 in one call: a row per line of the
// customer's latest order.
func (e *executor) orderStatus(ctx context.Context, db tpcc.Pool, home tpcc.Home) (int, error) {
	in := e.draw.OrderStatus(home)
	retries, err := e.call(ctx, db, func(c *pgx.Conn) error {
		rows, err := c.Query(ctx, orderStatusSQL, in.WID, in.DID, in.CID, in.CLast)
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
			err = fmt.Errorf("customer %d not found", in.CID)
		}
		return err
	})
	if err != nil {
		return retries, fmt.Errorf("order-status (w %d, d %d): %w", in.WID, in.DID, err)
	}
	e.tally.OrderStatus(in.CLast != "")
	return retries, nil
}
