package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/benchrig/benchrig/tpcc"
)

// Payment's fixed statements (prepared at warm-up).
const (
	wlPayUpdateWarehouse = `UPDATE warehouse SET w_ytd = w_ytd + $1 WHERE w_id = $2 RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip`
	wlPayUpdateDistrict  = `UPDATE district SET d_ytd = d_ytd + $1 WHERE d_w_id = $2 AND d_id = $3 RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip`
	wlPaySelectByLast    = `SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first ASC`
	// wlPayUpdateCustomerCRDB is CockroachDB-only (`:::` type assertions).
	//
	// fidelity:v20.1/D13
	wlPayUpdateCustomerCRDB = `UPDATE customer SET (c_balance, c_ytd_payment, c_payment_cnt, c_data) = (c_balance - ($1:::float)::decimal, c_ytd_payment + ($1:::float)::decimal, c_payment_cnt + 1, case c_credit when 'BC' then left(c_id::text || c_d_id::text || c_w_id::text || ($5:::int)::text || ($6:::int)::text || ($1:::float)::text || c_data, 500) else c_data end) WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4 RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, case c_credit when 'BC' then left(c_data, 200) else '' end`
	wlPayUpdateCustomerPG   = `UPDATE customer SET (c_balance, c_ytd_payment, c_payment_cnt, c_data) = (c_balance - ($1::float8)::decimal, c_ytd_payment + ($1::float8)::decimal, c_payment_cnt + 1, case c_credit when 'BC' then left(c_id::text || c_d_id::text || c_w_id::text || ($5::int8)::text || ($6::int8)::text || ($1::float8)::text || c_data, 500) else c_data end) WHERE c_w_id = $2 AND c_d_id = $3 AND c_id = $4 RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, case c_credit when 'BC' then left(c_data, 200) else '' end`
	wlPayInsertHistory      = `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_date, h_data) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
)

// payment is workload's Payment: UPDATE warehouse, UPDATE district,
// [SELECT customers by last name], UPDATE customer, INSERT history: 4 or
// 5 statements, 8 or 9 round trips. As in workload, the by-name SELECT
// looks in the home warehouse and district even for a remote customer.
//
// fidelity:v20.1/D11 fidelity:v20.1/D12
func (p *Profile) payment(ctx context.Context, w *worker, db tpcc.Pool, wID int32) (int, error) {
	r, c := w.rng, w.constants
	dID := int32(r.Int(1, 10))
	amount := float64(r.Int(100, 500000)) / 100
	date := time.Now().UTC().Format(wlTime)
	cWID, cDID := wID, dID
	if r.Int(0, 99) >= 85 {
		cWID = p.randActive(w, wID)
		cDID = int32(r.Int(1, 10))
	}
	var cLast string
	var cID int32
	byName := r.Int(0, 99) < 60
	if byName {
		cLast = r.LastNameRun(c)
	} else {
		cID = int32(r.CustomerID(c))
	}
	s := wlStatementsFor(p.dialect)
	retries, err := p.inTx(ctx, w, db, tpcc.PaymentTxn, func(t *wlTx) error {
		var wName, dName, x1, x2, x3, x4, x5 string
		if err := t.queryRow(wlPayUpdateWarehouse, []any{amount, wID}, &wName, &x1, &x2, &x3, &x4, &x5); err != nil {
			return err
		}
		if err := t.queryRow(wlPayUpdateDistrict, []any{amount, wID, dID}, &dName, &x1, &x2, &x3, &x4, &x5); err != nil {
			return err
		}
		id := cID
		if byName {
			var err error
			if id, err = t.middleByLastName(wlPaySelectByLast, wID, dID, cLast); err != nil {
				return fmt.Errorf("select by last name: %w", err)
			}
		}
		var first, middle, last, st1, st2, city, state, zip, phone, credit, data string
		var since time.Time
		var creditLim, discount, balance float64
		if err := t.queryRow(s.payUpdateCustomer, []any{amount, cWID, cDID, id, dID, wID},
			&first, &middle, &last, &st1, &st2, &city, &state, &zip, &phone, &since, &credit,
			&creditLim, &discount, &balance, &data); err != nil {
			return fmt.Errorf("update customer: %w", err)
		}
		return t.exec(wlPayInsertHistory, id, cDID, cWID, dID, wID, amount, date, wName+"    "+dName)
	})
	if err != nil {
		return retries, fmt.Errorf("payment (w %d, d %d): %w", wID, dID, err)
	}
	w.tally.Payment(wID, cWID, byName)
	return retries, nil
}
