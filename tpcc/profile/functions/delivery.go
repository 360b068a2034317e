package functions

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// delivery is clause 2.7.4 in one call for all ten districts.
func (e *executor) delivery(ctx context.Context, db tpcc.Pool, home tpcc.Home) (int, error) {
	carrier := e.draw.Delivery()
	var skipped int32
	retries, err := e.call(ctx, db, func(c *pgx.Conn) error {
		return c.QueryRow(ctx, deliverySQL, home.W, carrier).Scan(&skipped)
	})
	if err != nil {
		return retries, fmt.Errorf("delivery (w %d): %w", home.W, err)
	}
	e.tally.Delivery(int(skipped)) // clause 2.7.2.3, as delivery.go
	return retries, nil
}
