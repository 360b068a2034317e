package functions

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// newOrder is clause 2.4.2 in one call. The 1% rollback comes back as
// SQLSTATE BR001 and counts as a completed New-Order, as in newOrder.
func (e *executor) newOrder(ctx context.Context, db tpcc.Pool, home tpcc.Home) (int, error) {
	in := &e.no
	e.draw.NewOrder(in, home)
	e.itemI, e.supplyW, e.qty = e.itemI[:0], e.supplyW[:0], e.qty[:0]
	for _, l := range in.Lines {
		e.itemI = append(e.itemI, l.ItemID)
		e.supplyW = append(e.supplyW, l.SupplyWID)
		e.qty = append(e.qty, l.Quantity)
	}
	retries, err := e.call(ctx, db, func(c *pgx.Conn) error {
		var oID int32
		var total float64
		err := c.QueryRow(ctx, newOrderSQL, in.WID, in.DID, in.CID, e.itemI, e.supplyW, e.qty).Scan(&oID, &total)
		if sqlState(err) == rollbackState {
			if in.Rollback {
				return tpcc.ErrNewOrderRollback
			}
			return fmt.Errorf("items not found (is the item table loaded?): %w", err)
		}
		if err != nil {
			return err
		}
		e.lastTotal = total
		return nil
	})
	if err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.WID, in.DID, in.CID, err)
	}
	if err == nil && in.Rollback {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): committed with the unused item %d", in.WID, in.DID, in.CID, tpcc.UnusedItemID)
	}
	e.tally.NewOrder(in.WID, len(in.Lines), in.Rollback, in.Supply)
	return retries, nil
}
