package pipelined

import (
	"context"
	"fmt"

	"github.com/benchrig/benchrig/tpcc"
)

// stockLevelSQL is clause 2.8.2.2 as one statement: the number of
// distinct items among the district's last 20 orders whose home stock is
// below the threshold. Clause 2.8.2.3 needs no more than read committed,
// so it runs as an implicit single-statement transaction.
const stockLevelSQL = `SELECT count(DISTINCT s_i_id) FROM district, order_line, stock
WHERE d_w_id = $1 AND d_id = $2
AND ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < d_next_o_id AND ol_o_id >= d_next_o_id - 20
AND s_w_id = $1 AND s_i_id = ol_i_id AND s_quantity < $3`

// stockLevel runs clause 2.8.2 for the terminal's own district: each
// terminal of a warehouse has a fixed, distinct D_ID (clause 2.8.1.1).
func (w *worker) stockLevel(ctx context.Context, db tpcc.Pool, home tpcc.Home) (retries int, err error) {
	threshold := w.draw.StockLevel()
	retries, err = w.retry(ctx, func() error {
		var n int64
		return db.QueryRow(ctx, stockLevelSQL, home.W, home.D, threshold).Scan(&n)
	})
	if err != nil {
		return retries, fmt.Errorf("stock-level (w %d, d %d): %w", home.W, home.D, err)
	}
	return retries, nil
}
