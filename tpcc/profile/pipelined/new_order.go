package pipelined

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc"
)

// The statements of New-Order's profile (clause 2.4.2.2), sent in one
// round trip. Locks are taken in a fixed order — the district row, then
// stock rows sorted by (s_w_id, s_i_id) — so concurrent New-Orders never
// deadlock. Clause 2.4.2.2 gives the profile's steps, and the order
// lines keep their OL_NUMBER (the n-th input line is line n), so only the
// order in which stock rows are locked changes; the spec's profile fixes
// results, not the locking order (CockroachDB's driver sorts its items
// the same way).
//
// Nothing the client computes feeds a later statement: the new
// S_QUANTITY is computed by the UPDATE from the row it locked, and the
// ORDER, NEW-ORDER and ORDER-LINE rows take O_ID from the district row
// this transaction incremented, OL_AMOUNT from the item and OL_DIST_INFO
// from the stock row. So the transaction is one batch, BEGIN to COMMIT,
// and the district row is locked by the first statement, as the snapshot
// is taken: at repeatable read a New-Order that loses the race for
// D_NEXT_O_ID fails there, before doing the rest (with two
// round trips the client's turn sat inside the district lock).
//
// The district row is incremented by an upsert on its primary key, for
// the reason payment.go gives: a sequential scan of the
// 40-row table under SERIALIZABLE predicate-locks the whole relation.
const (
	noDistrictSQL = `INSERT INTO district (d_w_id, d_id) VALUES ($1, $2)
ON CONFLICT (d_w_id, d_id) DO UPDATE SET d_next_o_id = district.d_next_o_id + 1
RETURNING d_tax, d_next_o_id - 1`
	// W_TAX is read, not written, so no upsert can take it by the key:
	// under SERIALIZABLE on PostgreSQL the transaction asks for index
	// scans (indexPlansSQL), so that this join reads warehouse through
	// its primary key too.
	noCustomerSQL = `SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse
WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3`
	noItemSQL     = `SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id = ANY($1::INT[])`
	noStockSQLFmt = `SELECT s_i_id, s_w_id, s_quantity, s_data, s_dist_%02d FROM stock
WHERE (s_w_id, s_i_id) IN (SELECT * FROM unnest($1::INT[], $2::INT[]))
ORDER BY s_w_id, s_i_id FOR UPDATE`
	// Clause 2.4.2.2: S_QUANTITY − OL_QUANTITY if that leaves at least
	// 10, else 91 is added; computed from the row the previous
	// statement locked.
	noStockUpdateSQL = `UPDATE stock SET s_quantity = CASE WHEN s_quantity >= u.qty + 10
THEN s_quantity - u.qty ELSE s_quantity - u.qty + 91 END,
s_ytd = s_ytd + u.qty, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + u.r
FROM unnest($1::INT[], $2::INT[], $3::INT[], $4::INT[]) AS u(w, i, qty, r)
WHERE s_w_id = u.w AND s_i_id = u.i`
	// The ORDER, NEW-ORDER and ORDER-LINE rows, O_ID being the
	// district's D_NEXT_O_ID before this transaction's increment (the
	// row is this transaction's own write, locked by it). ol_amount =
	// ol_quantity × i_price, computed by the database in exact NUMERIC;
	// OL_DIST_INFO is S_DIST_xx for D_ID (clause 2.4.2.2). A line whose
	// item is not found (the unused id of clause 2.4.1.4) gets a NULL
	// OL_I_ID, which the NOT NULL column refuses: the statement fails,
	// the COMMIT after it is skipped, and the transaction is rolled back
	// (clause 2.4.2.3).
	noOrderSQL = `WITH d AS (SELECT d_next_o_id - 1 AS o_id FROM district WHERE d_w_id = $1 AND d_id = $2),
o AS (INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
SELECT o_id, $2, $1, $3, now(), $4, $5 FROM d),
n AS (INSERT INTO new_order (no_o_id, no_d_id, no_w_id) SELECT o_id, $2, $1 FROM d)
INSERT INTO order_line
(ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
SELECT d.o_id, $2::INT, $1::INT, u.n, s.s_i_id, u.sw, u.qty, u.qty * it.i_price,
CASE $2::INT WHEN 1 THEN s.s_dist_01 WHEN 2 THEN s.s_dist_02 WHEN 3 THEN s.s_dist_03 WHEN 4 THEN s.s_dist_04
WHEN 5 THEN s.s_dist_05 WHEN 6 THEN s.s_dist_06 WHEN 7 THEN s.s_dist_07 WHEN 8 THEN s.s_dist_08
WHEN 9 THEN s.s_dist_09 WHEN 10 THEN s.s_dist_10 END
FROM d, unnest($6::INT[], $7::INT[], $8::INT[], $9::INT[]) AS u(n, i, sw, qty)
LEFT JOIN item AS it ON it.i_id = u.i
LEFT JOIN stock AS s ON s.s_w_id = u.sw AND s.s_i_id = it.i_id`
)

// noStockSQL holds the stock query per district: S_DIST_xx is selected by
// D_ID (clause 2.4.2.2).
func noStockSQL() [11]string {
	var q [11]string
	for d := 1; d <= 10; d++ {
		q[d] = fmt.Sprintf(noStockSQLFmt, d)
	}
	return q
}

// newOrderScratch is reused across a worker's New-Orders to keep the run
// phase allocation-light.
type newOrderScratch struct {
	in tpcc.NewOrderInput
	// The lines' columns, the statements' array arguments.
	supplyW, itemI, qty, remote, lineN []int32
}

// newOrder runs clause 2.4.2. It returns ErrNewOrderRollback for the 1%
// rollback, which the caller counts as a completed New-Order.
func (w *worker) newOrder(ctx context.Context, db tpcc.Pool, home tpcc.Home) (retries int, err error) {
	s := &w.no
	in := &s.in
	w.draw.NewOrder(in, home)
	// The statements' arrays, drawn once: a retried attempt sends the
	// same.
	s.supplyW, s.itemI, s.qty, s.remote, s.lineN = s.supplyW[:0], s.itemI[:0], s.qty[:0], s.remote[:0], s.lineN[:0]
	for n, l := range in.Lines {
		var remote int32
		if l.SupplyWID != in.WID {
			remote = 1
		}
		s.supplyW = append(s.supplyW, l.SupplyWID)
		s.itemI = append(s.itemI, l.ItemID)
		s.qty = append(s.qty, l.Quantity)
		s.remote = append(s.remote, remote)
		s.lineN = append(s.lineN, int32(n+1))
	}
	stockSQL := w.stockSQL[in.DID]
	allLocal := 0
	if in.AllLocal {
		allLocal = 1
	}

	retries, err = w.inPipe(ctx, db, w.rwBegin, func(tx *pipeTx) error {
		var b pgx.Batch
		var dTax, cDiscount, wTax float64
		var oID int32
		var cLast, cCredit string
		b.Queue(noDistrictSQL, in.WID, in.DID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&dTax, &oID)
		})
		b.Queue(noCustomerSQL, in.WID, in.DID, in.CID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&cDiscount, &cLast, &cCredit, &wTax)
		})
		prices, priceIDs := w.prices[:0], w.priceIDs[:0]
		found, stocked := 0, 0
		b.Queue(noItemSQL, s.itemI).Query(func(rows pgx.Rows) error {
			var id int32
			var price float64
			var name, data string
			_, err := pgx.ForEachRow(rows, []any{&id, &price, &name, &data}, func() error {
				found++
				prices = append(prices, price)
				priceIDs = append(priceIDs, id)
				return nil
			})
			return err
		})
		b.Queue(stockSQL, s.supplyW, s.itemI).Query(func(rows pgx.Rows) error {
			// S_QUANTITY, S_DATA and S_DIST_xx are the terminal's to
			// display (clause 2.4.3.3); the database used them already.
			var i, sw, q int32
			var data, dist string
			_, err := pgx.ForEachRow(rows, []any{&i, &sw, &q, &data, &dist}, func() error {
				stocked++
				return nil
			})
			return err
		})
		b.Queue(noStockUpdateSQL, s.supplyW, s.itemI, s.qty, s.remote)
		b.Queue(noOrderSQL, in.WID, in.DID, in.CID, len(in.Lines), allLocal, s.lineN, s.itemI, s.supplyW, s.qty).Exec(func(ct pgconn.CommandTag) error {
			if n := ct.RowsAffected(); n != int64(len(in.Lines)) {
				return fmt.Errorf("%d order lines inserted, want %d", n, len(in.Lines))
			}
			return nil
		})
		err := tx.send(ctx, &b, true)
		w.prices, w.priceIDs = prices, priceIDs
		if err != nil {
			// Clause 2.4.2.3: the unused item is "not found"; its order
			// line's NULL OL_I_ID failed the statement (not_null_violation)
			// and the transaction is rolled back. Only the rollback input
			// can miss: every other id is in 1..100000.
			var pg *pgconn.PgError
			if in.Rollback && found == len(in.Lines)-1 && errors.As(err, &pg) && pg.Code == "23502" {
				return tpcc.ErrNewOrderRollback
			}
			if found > 0 && found < len(in.Lines) && !in.Rollback {
				return fmt.Errorf("%d of %d items not found (is the item table loaded?): %w", len(in.Lines)-found, len(in.Lines), err)
			}
			return fmt.Errorf("order %d: %w", oID, err)
		}
		if found < len(in.Lines) || stocked < len(in.Lines) {
			return fmt.Errorf("%d items and %d stock rows found for %d lines", found, stocked, len(in.Lines))
		}
		// The terminal's output (clause 2.4.3.3) includes the total:
		// Σ OL_AMOUNT × (1 − C_DISCOUNT) × (1 + W_TAX + D_TAX). It is
		// displayed, never stored, so float arithmetic is fine here.
		var total float64
		for _, l := range in.Lines {
			if i := slices.Index(w.priceIDs, l.ItemID); i >= 0 {
				total += float64(l.Quantity) * w.prices[i]
			}
		}
		w.lastTotal = total * (1 - cDiscount) * (1 + wTax + dTax)
		return nil
	})
	if err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.WID, in.DID, in.CID, err)
	}
	w.tally.NewOrder(in.WID, len(in.Lines), in.Rollback, in.Supply)
	return retries, nil
}
