package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// New-Order's fixed statements (prepared at warm-up).
const (
	wlNOUpdateDistrict = `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax, d_next_o_id`
	wlNOSelectWTax     = `SELECT w_tax FROM warehouse WHERE w_id = $1`
	wlNOSelectCustomer = `SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3`
	wlNOInsertOrder    = `INSERT INTO "order" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, $5, $6, $7)`
	wlNOInsertNewOrder = `INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)`
)

// wlLine is a New-Order line as workload draws it.
type wlLine struct {
	item, supply, number, quantity int32
	remote                         bool
	price                          float64
	dist                           string
}

// wlNewOrderInput is New-Order's input (clause 2.4.1 as workload draws
// it: per transaction a random district, C_ID with its C, 5..15 lines
// with distinct items sorted by item id, 1% rollback on the last line's
// item id -1, 1% remote lines from the active warehouses).
type wlNewOrderInput struct {
	wID, dID, cID int32
	rollback      bool
	allLocal      int
	lines         []wlLine
}

// fidelity:v20.1/D7
func (p *Profile) drawNewOrder(w *worker, wID int32) wlNewOrderInput {
	r, c := w.rng, w.constants
	in := wlNewOrderInput{wID: wID, dID: int32(r.Int(1, 10)), cID: int32(r.CustomerID(c)), allLocal: 1}
	n := r.Int(5, 15)
	in.rollback = r.Int(0, 99) == 0
	for i := range n {
		l := wlLine{number: int32(i + 1), quantity: int32(r.Int(1, 10))}
		if in.rollback && i == n-1 {
			l.item = -1
		} else {
			for {
				l.item = int32(r.NURand(workloadItemA, 1, 100000, c.OLIID))
				if !slices.ContainsFunc(in.lines, func(o wlLine) bool { return o.item == l.item }) {
					break
				}
			}
		}
		l.remote = r.Int(0, 99) == 0
		l.supply = wID
		if l.remote && p.active.len() > 1 {
			in.allLocal = 0
			l.supply = p.randActive(w, wID)
		}
		in.lines = append(in.lines, l)
	}
	// Sorted as the batch SELECTs return them.
	slices.SortFunc(in.lines, func(a, b wlLine) int { return int(a.item - b.item) })
	return in
}

// wlNewOrderItemSQL is New-Order's item SELECT with the ids inline.
func wlNewOrderItemSQL(lines []wlLine) string {
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = strconv.Itoa(int(l.item))
	}
	return `SELECT i_price, i_name, i_data FROM item WHERE i_id IN (` + strings.Join(ids, ", ") + `) ORDER BY i_id`
}

func wlStockKeys(lines []wlLine) []string {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = fmt.Sprintf("(%d, %d)", l.item, l.supply)
	}
	return keys
}

// wlNewOrderStockSQL is New-Order's stock SELECT for district dID.
func wlNewOrderStockSQL(dID int32, lines []wlLine) string {
	return fmt.Sprintf(`SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt, s_data, s_dist_%02d FROM stock WHERE (s_i_id, s_w_id) IN (%s) ORDER BY s_i_id`,
		dID, strings.Join(wlStockKeys(lines), ", "))
}

// wlStockUpdate is one stock row's new values.
type wlStockUpdate struct{ quantity, ytd, orderCnt, remoteCnt int }

// wlNewOrderStockUpdateSQL is New-Order's stock UPDATE: one statement
// with a CASE per column keyed by (s_i_id, s_w_id).
//
// fidelity:v20.1/D9
func wlNewOrderStockUpdateSQL(s wlStatements, lines []wlLine, ups []wlStockUpdate) string {
	keys := wlStockKeys(lines)
	var q, y, o, rc []string
	for i, u := range ups {
		q = append(q, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.quantity))
		y = append(y, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.ytd))
		o = append(o, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.orderCnt))
		rc = append(rc, fmt.Sprintf("WHEN %s THEN %d", keys[i], u.remoteCnt))
	}
	guard := ""
	if s.forceError {
		guard = " ELSE crdb_internal.force_error('', 'unknown case')"
	}
	return fmt.Sprintf(`UPDATE stock SET s_quantity = CASE (s_i_id, s_w_id) %s%s END, s_ytd = CASE (s_i_id, s_w_id) %s END, s_order_cnt = CASE (s_i_id, s_w_id) %s END, s_remote_cnt = CASE (s_i_id, s_w_id) %s END WHERE (s_i_id, s_w_id) IN (%s)`,
		strings.Join(q, " "), guard, strings.Join(y, " "), strings.Join(o, " "), strings.Join(rc, " "), strings.Join(keys, ", "))
}

// wlNewOrderLinesSQL is New-Order's order_line INSERT with every line's
// values inline (ol_amount with six decimals, as workload's %f).
func wlNewOrderLinesSQL(oID, dID, wID int32, lines []wlLine) string {
	vals := make([]string, len(lines))
	for i, l := range lines {
		vals[i] = fmt.Sprintf("(%d,%d,%d,%d,%d,%d,%d,%f,'%s')", oID, dID, wID, l.number, l.item, l.supply, l.quantity,
			float64(l.quantity)*l.price, l.dist)
	}
	return `INSERT INTO order_line(ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ` + strings.Join(vals, ", ")
}

// newOrder is workload's New-Order: UPDATE district, SELECT warehouse,
// SELECT customer, SELECT item, SELECT stock, INSERT order, INSERT
// new_order, UPDATE stock, INSERT order_line: 9 statements, 15 round
// trips with BEGIN, SAVEPOINT, RELEASE and COMMIT (the item and stock
// SELECTs take two each). A rollback (1%) ends after the item SELECT
// finds the unused id missing: 8 round trips with its ROLLBACK.
//
// fidelity:v20.1/D6 fidelity:v20.1/D8
func (p *Profile) newOrder(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	in := p.drawNewOrder(w, wID)
	entry := time.Now().UTC().Format(wlTime)
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.NewOrderTxn, func(t *wlTx) error {
		var dTax, wTax, cDiscount float64
		var dNext int32
		var cLast, cCredit string
		if err := t.queryRow(wlNOUpdateDistrict, []any{in.wID, in.dID}, &dTax, &dNext); err != nil {
			return err
		}
		oID := dNext - 1
		if err := t.queryRow(wlNOSelectWTax, []any{in.wID}, &wTax); err != nil {
			return err
		}
		if err := t.queryRow(wlNOSelectCustomer, []any{in.wID, in.dID, in.cID}, &cDiscount, &cLast, &cCredit); err != nil {
			return err
		}
		iData := make([]string, len(in.lines))
		n := 0
		if err := t.query(wlNewOrderItemSQL(in.lines), true, nil, func(rows pgx.Rows) error {
			if n == len(in.lines) {
				return errors.New("extra item row")
			}
			var name string
			if err := rows.Scan(&in.lines[n].price, &name, &iData[n]); err != nil {
				return err
			}
			n++
			return nil
		}); err != nil {
			return err
		}
		if n < len(in.lines) {
			if in.rollback {
				return tpcc.ErrNewOrderRollback // 2.4.2.3: the unused item is not found
			}
			return errors.New("missing item row")
		}
		ups := make([]wlStockUpdate, len(in.lines))
		n = 0
		if err := t.query(wlNewOrderStockSQL(in.dID, in.lines), true, nil, func(rows pgx.Rows) error {
			if n == len(in.lines) {
				return errors.New("extra stock row")
			}
			var q, ytd, cnt, rcnt int
			var sData string
			if err := rows.Scan(&q, &ytd, &cnt, &rcnt, &sData, &in.lines[n].dist); err != nil {
				return err
			}
			l := in.lines[n]
			nq := q - int(l.quantity)
			if q < int(l.quantity)+10 {
				nq += 91 // 2.4.2.2
			}
			if l.remote {
				rcnt++
			}
			ups[n] = wlStockUpdate{quantity: nq, ytd: ytd + int(l.quantity), orderCnt: cnt + 1, remoteCnt: rcnt}
			n++
			return nil
		}); err != nil {
			return err
		}
		if n < len(in.lines) {
			return errors.New("missing stock row")
		}
		if err := t.exec(wlNOInsertOrder, oID, in.dID, in.wID, in.cID, entry, len(in.lines), in.allLocal); err != nil {
			return err
		}
		if err := t.exec(wlNOInsertNewOrder, oID, in.dID, in.wID); err != nil {
			return err
		}
		if err := t.simple(wlNewOrderStockUpdateSQL(s, in.lines, ups)); err != nil {
			return err
		}
		if err := t.simple(wlNewOrderLinesSQL(oID, in.dID, in.wID, in.lines)); err != nil {
			return err
		}
		var total float64
		for _, l := range in.lines {
			total += float64(l.quantity) * l.price
		}
		w.lastTotal = total * (1 - cDiscount) * (1 + wTax + dTax)
		return nil
	})
	if err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
		return retries, fmt.Errorf("new-order (w %d, d %d, c %d): %w", in.wID, in.dID, in.cID, err)
	}
	w.tally.NewOrder(in.wID, len(in.lines), in.rollback, func(i int) int32 { return in.lines[i].supply })
	return retries, err
}
