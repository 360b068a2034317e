package tpcc

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// newOrderLine is one line's input (clause 2.4.1.5).
type newOrderLine struct {
	itemID, supplyWID, quantity int32
}

// newOrderInput is drawn once per transaction, before the first attempt,
// so that a retried attempt re-executes the same business transaction.
type newOrderInput struct {
	wID, dID, cID int32
	lines         []newOrderLine
	rollback      bool // last line carries an unused item id (clause 2.4.1.4)
	allLocal      bool
}

// unusedItemID is outside 1..100000 (clause 2.4.1.5.1 and 2.4.1.4: "an
// unused value"), so the item lookup finds nothing and the transaction
// rolls back.
const unusedItemID = 100001

// drawNewOrder implements clause 2.4.1.
func (w *worker) drawNewOrder(in *newOrderInput, home Home) {
	r := w.rng
	in.wID = home.W
	in.dID = int32(r.Int(1, 10))              // 2.4.1.2: D_ID random within [1 .. 10]
	in.cID = int32(r.CustomerID(w.constants)) // 2.4.1.2: C_ID = NURand(1023, 1, 3000)
	n := r.Int(5, 15)                         // 2.4.1.3: ol_cnt random within [5 .. 15]
	in.rollback = r.Int(1, 100) == 1          // 2.4.1.4: rbk = 1 for 1% of New-Orders
	in.lines = in.lines[:0]
	in.allLocal = true
	for i := range n {
		var item int32
		if in.rollback && i == n-1 {
			item = unusedItemID
		} else {
			// Item ids are redrawn until distinct: the batched stock
			// UPDATE needs one row per (supply warehouse, item), and
			// CockroachDB's and go-tpc's drivers do the same.
			for {
				item = int32(r.ItemID(w.constants)) // 2.4.1.5.1: NURand(8191, 1, 100000)
				if !slices.ContainsFunc(in.lines, func(l newOrderLine) bool { return l.itemID == item }) {
					break
				}
			}
		}
		supply := in.wID
		// 2.4.1.5.2: 99% home, 1% a random remote warehouse (never
		// remote with a single warehouse).
		if w.warehouses > 1 && r.Int(1, 100) == 1 {
			supply = w.otherWarehouse(in.wID)
			in.allLocal = false
		}
		in.lines = append(in.lines, newOrderLine{
			itemID: item, supplyWID: supply,
			quantity: int32(r.Int(1, 10)), // 2.4.1.5.3
		})
	}
}

// The statements of New-Order's profile (clause 2.4.2.2), batched into
// two round trips. Locks are taken in a fixed order — the district row,
// then stock rows sorted by (s_w_id, s_i_id) — so concurrent New-Orders
// never deadlock. Clause 2.4.2.2 gives the profile's steps, and the
// order lines keep their OL_NUMBER (the n-th input line is line n), so
// only the order in which stock rows are locked changes; the spec's
// profile fixes results, not the locking order (research/tpcc.md's
// reading of §2.4.2.2; CockroachDB's driver sorts its items the
// same way).
//
// The district row is incremented by an upsert on its primary key, for
// the reason payment.go gives (issue 22): a sequential scan of the
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
	noOrderSQL = `INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES ($1, $2, $3, $4, now(), $5, $6)`
	noNewOrderSQL    = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`
	noStockUpdateSQL = `UPDATE stock SET s_quantity = u.q, s_ytd = s_ytd + u.qty,
s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + u.r
FROM unnest($1::INT[], $2::INT[], $3::INT[], $4::INT[], $5::INT[]) AS u(w, i, q, qty, r)
WHERE s_w_id = u.w AND s_i_id = u.i`
	// ol_amount = ol_quantity × i_price, computed by the database in exact
	// NUMERIC (clause 2.4.2.2).
	noOrderLineSQL = `INSERT INTO order_line
(ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
SELECT $1::INT, $2::INT, $3::INT, u.n, u.i, u.sw, u.qty, u.qty * it.i_price, u.dist
FROM unnest($4::INT[], $5::INT[], $6::INT[], $7::INT[], $8::TEXT[]) AS u(n, i, sw, qty, dist)
JOIN item AS it ON it.i_id = u.i`
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
	in                             newOrderInput
	stockW, stockI                 []int32
	updW, updI, updQ, updQty, updR []int32
	lineN, lineI, lineSW, lineQty  []int32
	lineDist                       []string
	stock                          map[[2]int32]stockRow
}

type stockRow struct {
	quantity int32
	dist     string
	data     string
}

// newOrder runs clause 2.4.2. It returns ErrNewOrderRollback for the 1%
// rollback, which the caller counts as a completed New-Order.
func (w *worker) newOrder(ctx context.Context, db Pool, home Home) (retries int, err error) {
	s := &w.no
	in := &s.in
	w.drawNewOrder(in, home)
	s.stockW, s.stockI = s.stockW[:0], s.stockI[:0]
	for _, l := range in.lines {
		s.stockW = append(s.stockW, l.supplyWID)
		s.stockI = append(s.stockI, l.itemID)
	}
	items := s.stockI
	stockSQL := w.stockSQL[in.dID]

	retries, err = w.inPipe(ctx, db, w.rwBegin, func(tx *pipeTx) error {
		var b pgx.Batch
		var dTax, cDiscount, wTax float64
		var oID int32
		var cLast, cCredit string
		b.Queue(noDistrictSQL, in.wID, in.dID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&dTax, &oID)
		})
		b.Queue(noCustomerSQL, in.wID, in.dID, in.cID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&cDiscount, &cLast, &cCredit, &wTax)
		})
		prices, priceIDs := w.prices[:0], w.priceIDs[:0]
		found := 0
		b.Queue(noItemSQL, items).Query(func(rows pgx.Rows) error {
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
		clear(s.stock)
		b.Queue(stockSQL, s.stockW, s.stockI).Query(func(rows pgx.Rows) error {
			var i, sw, q int32
			var data, dist string
			_, err := pgx.ForEachRow(rows, []any{&i, &sw, &q, &data, &dist}, func() error {
				s.stock[[2]int32{sw, i}] = stockRow{quantity: q, dist: dist, data: data}
				return nil
			})
			return err
		})
		if err := tx.send(ctx, &b, false); err != nil {
			return fmt.Errorf("district/customer/item/stock: %w", err)
		}
		w.prices, w.priceIDs = prices, priceIDs
		if found < len(in.lines) {
			// Clause 2.4.2.3: the unused item is "not found"; the
			// transaction is rolled back. Only the rollback input can
			// miss: every other id is in 1..100000.
			if in.rollback {
				return ErrNewOrderRollback
			}
			return fmt.Errorf("%d of %d items not found (is the item table loaded?)", len(in.lines)-found, len(in.lines))
		}

		s.updW, s.updI, s.updQ, s.updQty, s.updR = s.updW[:0], s.updI[:0], s.updQ[:0], s.updQty[:0], s.updR[:0]
		s.lineN, s.lineI, s.lineSW, s.lineQty, s.lineDist = s.lineN[:0], s.lineI[:0], s.lineSW[:0], s.lineQty[:0], s.lineDist[:0]
		for n, l := range in.lines {
			st, ok := s.stock[[2]int32{l.supplyWID, l.itemID}]
			if !ok {
				return fmt.Errorf("stock row (w %d, item %d) not found", l.supplyWID, l.itemID)
			}
			// Clause 2.4.2.2: S_QUANTITY − OL_QUANTITY if that leaves at
			// least 10, else 91 is added.
			q := st.quantity - l.quantity
			if st.quantity < l.quantity+10 {
				q += 91
			}
			var remote int32
			if l.supplyWID != in.wID {
				remote = 1
			}
			s.updW = append(s.updW, l.supplyWID)
			s.updI = append(s.updI, l.itemID)
			s.updQ = append(s.updQ, q)
			s.updQty = append(s.updQty, l.quantity)
			s.updR = append(s.updR, remote)
			s.lineN = append(s.lineN, int32(n+1))
			s.lineI = append(s.lineI, l.itemID)
			s.lineSW = append(s.lineSW, l.supplyWID)
			s.lineQty = append(s.lineQty, l.quantity)
			s.lineDist = append(s.lineDist, st.dist)
		}
		allLocal := 0
		if in.allLocal {
			allLocal = 1
		}
		var b2 pgx.Batch
		b2.Queue(noOrderSQL, oID, in.dID, in.wID, in.cID, len(in.lines), allLocal)
		b2.Queue(noNewOrderSQL, oID, in.dID, in.wID)
		b2.Queue(noStockUpdateSQL, s.updW, s.updI, s.updQ, s.updQty, s.updR)
		b2.Queue(noOrderLineSQL, oID, in.dID, in.wID, s.lineN, s.lineI, s.lineSW, s.lineQty, s.lineDist)
		if err := tx.send(ctx, &b2, true); err != nil {
			return fmt.Errorf("insert order %d: %w", oID, err)
		}
		// The terminal's output (clause 2.4.3.3) includes the total:
		// Σ OL_AMOUNT × (1 − C_DISCOUNT) × (1 + W_TAX + D_TAX). It is
		// displayed, never stored, so float arithmetic is fine here.
		var total float64
		for _, l := range in.lines {
			if i := slices.Index(w.priceIDs, l.itemID); i >= 0 {
				total += float64(l.quantity) * w.prices[i]
			}
		}
		w.lastTotal = total * (1 - cDiscount) * (1 + wTax + dTax)
		return nil
	})
	if err != nil && !errors.Is(err, ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.wID, in.dID, in.cID, err)
	}
	w.counters().newOrder(in.wID, len(in.lines), in.rollback, func(i int) int32 { return in.lines[i].supplyWID })
	return retries, nil
}
