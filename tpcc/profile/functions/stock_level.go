package functions

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// stockLevel is clause 2.8.2 in one call.
func (e *executor) stockLevel(ctx context.Context, db tpcc.Pool, home tpcc.Home) (int, error) {
	threshold := e.draw.StockLevel()
	retries, err := e.call(ctx, db, func(c *pgx.Conn) error {
		var n int64
		return c.QueryRow(ctx, stockLevelSQL, home.W, home.D, threshold).Scan(&n)
	})
	if err != nil {
		return retries, fmt.Errorf("stock-level (w %d, d %d): %w", home.W, home.D, err)
	}
	return retries, nil
}
