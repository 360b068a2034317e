package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// Delivery's fixed statements (prepared at warm-up).
const (
	wlDelSelectNewOrder = `SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 ORDER BY no_o_id ASC LIMIT 1`
	wlDelSumAmount      = `SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3`
)

// wlPair is a (district, value) pair of Delivery, in district order.
type wlPair struct {
	d  int32
	id int32
}

func wlInTuples(ps []wlPair) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprintf("(%d, %d)", p.d, p.id)
	}
	return strings.Join(s, ", ")
}

// wlDeliverySQL are Delivery's four batch statements for orders (district,
// o_id), their customers (district, c_id) and totals per district.
// (workload joins them from Go maps, in no fixed order; these are in
// district order, the same set.)
//
// fidelity:v20.1/D15
func wlDeliverySQL(wID, carrier int32, date string, orders, customers []wlPair, totals map[int32]float64) (updOrder, updCustomer, delNewOrder, updLines string) {
	ot := wlInTuples(orders)
	updOrder = fmt.Sprintf(`UPDATE "order" SET o_carrier_id = %d WHERE o_w_id = %d AND (o_d_id, o_id) IN (%s) RETURNING o_d_id, o_c_id`, carrier, wID, ot)
	var cases []string
	for _, o := range orders {
		cases = append(cases, fmt.Sprintf("WHEN %d THEN %f", o.d, totals[o.d]))
	}
	updCustomer = fmt.Sprintf(`UPDATE customer SET c_delivery_cnt = c_delivery_cnt + 1, c_balance = c_balance + CASE c_d_id %s END WHERE c_w_id = %d AND (c_d_id, c_id) IN (%s)`,
		strings.Join(cases, " "), wID, wlInTuples(customers))
	delNewOrder = fmt.Sprintf(`DELETE FROM new_order WHERE no_w_id = %d AND (no_d_id, no_o_id) IN (%s)`, wID, ot)
	updLines = fmt.Sprintf(`UPDATE order_line SET ol_delivery_d = '%s' WHERE ol_w_id = %d AND (ol_d_id, ol_o_id) IN (%s)`, date, wID, ot)
	return
}

// delivery is workload's Delivery: per district SELECT the oldest new
// order and SELECT its lines' sum, then UPDATE order, UPDATE customer,
// DELETE new_order, UPDATE order_line for all districts at once: up to
// 24 statements, 29 round trips (the UPDATE "order" ... RETURNING takes
// two).
//
// fidelity:v20.1/D15
func (p *Profile) delivery(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	carrier := int32(w.rng.Int(1, 10))
	date := time.Now().UTC().Format(wlTime)
	s := wlStatementsFor(p.dialect)
	var skipped int
	retries, err := p.inTx(ctx, w, db, tpcc.DeliveryTxn, func(t *wlTx) error {
		skipped = 0
		var orders []wlPair
		totals := map[int32]float64{}
		for d := int32(1); d <= 10; d++ {
			var oID int32
			if err := t.queryRow(wlDelSelectNewOrder, []any{wID, d}, &oID); err != nil {
				if errors.Is(err, pgx.ErrNoRows) {
					if p.emptyDistrictFails {
						// v20.1's workload returns the error (it tests
						// it against database/sql's ErrNoRows).
						return fmt.Errorf("district %d has no undelivered order, which fails workload's Delivery: %w", d, err)
					}
					skipped++ // 2.7.4.2: no undelivered order, the district is skipped
					continue
				}
				return err
			}
			orders = append(orders, wlPair{d, oID})
			var total *float64
			if err := t.queryRow(wlDelSumAmount, []any{wID, d, oID}, &total); err != nil {
				return err
			}
			if total != nil {
				totals[d] = *total
			}
		}
		if len(orders) == 0 && !s.emptyIn {
			return nil
		}
		updOrder, _, delNO, updLines := wlDeliverySQL(wID, carrier, date, orders, nil, totals)
		var customers []wlPair
		if err := t.query(updOrder, true, nil, func(rows pgx.Rows) error {
			var d, cID int32
			if err := rows.Scan(&d, &cID); err != nil {
				return err
			}
			customers = append(customers, wlPair{d, cID})
			return nil
		}); err != nil {
			return err
		}
		if len(customers) != len(orders) {
			return fmt.Errorf("delivery: %d orders updated, %d expected", len(customers), len(orders))
		}
		slices.SortFunc(customers, func(a, b wlPair) int { return int(a.d - b.d) })
		_, updCust, _, _ := wlDeliverySQL(wID, carrier, date, orders, customers, totals)
		if err := t.simple(updCust); err != nil {
			return err
		}
		if err := t.simple(delNO); err != nil {
			return err
		}
		return t.simple(updLines)
	})
	if err != nil {
		return retries, fmt.Errorf("delivery (w %d): %w", wID, err)
	}
	w.tally.Delivery(skipped)
	return retries, nil
}
