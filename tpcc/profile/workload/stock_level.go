package workload

import (
	"context"
	"fmt"

	"github.com/benchrig/benchrig/tpcc"
)

// Stock-Level's fixed statements (prepared at warm-up).
const (
	wlSLSelectDNextOID = `SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2`
	// wlSLCountCRDB's derived table has no alias: CockroachDB (and
	// PostgreSQL 16+) only.
	//
	// fidelity:v20.1/D16
	wlSLCountCRDB = `SELECT count(*) FROM (SELECT DISTINCT s_i_id FROM order_line JOIN stock ON s_i_id=ol_i_id AND s_w_id=ol_w_id WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id BETWEEN $3 - 20 AND $3 - 1 AND s_quantity < $4)`
	wlSLCountPG   = wlSLCountCRDB + ` AS recent`
)

// stockLevel is workload's Stock-Level: SELECT d_next_o_id, then the
// count of distinct recent items below the threshold: 2 statements, 6
// round trips, in a random district (workload does not fix a terminal's
// district).
//
// fidelity:v20.1/D16
func (p *Profile) stockLevel(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	threshold := int32(w.rng.Int(10, 20))
	dID := int32(w.rng.Int(1, 10))
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.StockLevelTxn, func(t *wlTx) error {
		var next int32
		if err := t.queryRow(wlSLSelectDNextOID, []any{wID, dID}, &next); err != nil {
			return err
		}
		var n int64
		return t.queryRow(s.slCount, []any{wID, dID, next, threshold}, &n)
	})
	if err != nil {
		return retries, fmt.Errorf("stock-level (w %d, d %d): %w", wID, dID, err)
	}
	return retries, nil
}
