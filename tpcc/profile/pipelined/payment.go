package pipelined

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

// Payment's profile (clause 2.5.2.2). Money travels as integer cents and
// becomes NUMERIC in the database (× 0.01), never a float. Locks are taken
// warehouse → district → customer.
//
// The warehouse and district rows are updated by upserts on their primary
// keys, not by UPDATE ... WHERE. On a table of a few pages the
// planner reads WHERE w_id = $1 with a sequential scan, and under
// SERIALIZABLE a sequential scan takes a relation-level SIRead lock
// (PostgreSQL's "Serializable Isolation Level" documentation: "A
// sequential scan will always necessitate a relation-level predicate
// lock"), so every Payment conflicted with every other transaction that
// wrote any warehouse or district row: storms of serialization failures
// with 4 warehouses. INSERT ... ON CONFLICT (pk) DO UPDATE finds the row
// through the primary key's unique index (its arbiter), never the planner,
// and takes no predicate lock on the relation; the row it updates is
// write-locked, so SSI needs no read lock on it. The warehouse and district
// always exist (the load made them), so the conflict path is always taken;
// were one missing, the inserted row's NULL name fails the scan and the
// transaction rolls back.
const (
	// W_YTD and D_YTD grow by H_AMOUNT and the addresses are returned
	// (clause 2.5.2.2): one statement, the first of the transaction, so
	// that the hot rows are locked as the snapshot is taken. The
	// district's upsert reads from w, so the warehouse row is always
	// locked first.
	payWarehouseDistrictSQL = `WITH w AS (
INSERT INTO warehouse (w_id) VALUES ($1) ON CONFLICT (w_id) DO UPDATE SET w_ytd = warehouse.w_ytd + $3::INT8 * 0.01
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
d AS (
INSERT INTO district (d_w_id, d_id) SELECT $1, $2 FROM w ON CONFLICT (d_w_id, d_id) DO UPDATE SET d_ytd = district.d_ytd + $3::INT8 * 0.01
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip)
SELECT w.*, d.* FROM w, d`
	// The customer is updated and the HISTORY row inserted in one
	// statement (clause 2.5.2.2): for bad credit ("BC") C_ID, C_D_ID,
	// C_W_ID, D_ID, W_ID and H_AMOUNT are inserted at the left of C_DATA,
	// which keeps its first 500 characters ($5 is the prefix after C_ID,
	// which the database knows when the customer is chosen by name);
	// H_DATA is W_NAME, four spaces, D_NAME. The history row takes the
	// updated customer's id through a scalar subquery: were no customer
	// updated, its NULL H_C_ID fails the statement and the transaction
	// rolls back instead of committing a payment without a customer.
	payCustomerSQLHead = `WITH c AS (
UPDATE customer SET c_balance = c_balance - $4::INT8 * 0.01,
c_ytd_payment = c_ytd_payment + $4::INT8 * 0.01, c_payment_cnt = c_payment_cnt + 1,
c_data = CASE c_credit WHEN 'BC' THEN substr(c_id::TEXT || $5::TEXT || c_data, 1, 500) ELSE c_data END
WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = `
	payCustomerSQLTail = `
RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
c_since, c_credit, c_credit_lim, c_discount, c_balance,
CASE c_credit WHEN 'BC' THEN substr(c_data, 1, 200) ELSE '' END),
h AS (
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT (SELECT c_id FROM c), $2::INT, $1::INT, $6::INT, $7::INT, now(), $4::INT8 * 0.01, w_name || '    ' || d_name
FROM warehouse, district WHERE w_id = $7 AND d_w_id = $7 AND d_id = $6)
SELECT * FROM c`
	payCustomerSQL = payCustomerSQLHead + `$3` + payCustomerSQLTail
	// By name (clause 2.5.2.2): the customers of the district with
	// C_LAST ordered by C_FIRST; the one at position ceil(n/2) is used,
	// i.e. offset (n-1)/2. The database chooses it inside the customer's
	// UPDATE, so a Payment by name costs one round trip like one by
	// C_ID, not a SELECT's round trip more (round trips are most
	// of the client's CPU), and no client turn sits between the
	// snapshot and the warehouse row's lock.
	payCustomerByNameSQL = payCustomerSQLHead + customerByNameExpr + payCustomerSQLTail
	// The customer of warehouse $1, district $2 chosen by last name $3
	// (clauses 2.5.2.2 and 2.6.2.2): of those with C_LAST = $3 ordered by
	// C_FIRST, the one at position ceil(n/2), i.e. offset (n-1)/2; none
	// when nobody has the name.
	customerByNameExpr = `(SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first
OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3) LIMIT 1)`
)

// payment runs clause 2.5.2.
func (w *worker) payment(ctx context.Context, db tpcc.Pool, home tpcc.Home) (retries int, err error) {
	return w.pay(ctx, db, w.draw.Payment(home))
}

// pay runs the Payment drawn as in, in one round trip.
func (w *worker) pay(ctx context.Context, db tpcc.Pool, in tpcc.PaymentInput) (retries int, err error) {
	// The part of C_DATA's prefix after C_ID (clause 2.5.2.2), drawn
	// once: a retried attempt sends the same.
	prefix := " " + strconv.Itoa(int(in.CDID)) + " " + strconv.Itoa(int(in.CWID)) + " " +
		strconv.Itoa(int(in.DID)) + " " + strconv.Itoa(int(in.WID)) + " " +
		strconv.FormatFloat(float64(in.Cents)/100, 'f', 2, 64) + " | "
	customerSQL, customer := payCustomerSQL, any(in.CID)
	if in.CLast != "" {
		customerSQL, customer = payCustomerByNameSQL, in.CLast
	}
	retries, err = w.inPipe(ctx, db, w.rwBegin, func(tx *pipeTx) error {
		var b pgx.Batch
		var wName, wS1, wS2, wCity, wState, wZip string
		var dName, dS1, dS2, dCity, dState, dZip string
		var cID int32
		var cFirst, cMiddle, cLast, cS1, cS2, cCity, cState, cZip, cPhone, cCredit, cData string
		var cSince time.Time
		var cCreditLim, cDiscount, cBalance float64
		b.Queue(payWarehouseDistrictSQL, in.WID, in.DID, in.Cents).QueryRow(func(row pgx.Row) error {
			return row.Scan(&wName, &wS1, &wS2, &wCity, &wState, &wZip, &dName, &dS1, &dS2, &dCity, &dState, &dZip)
		})
		b.Queue(customerSQL, in.CWID, in.CDID, customer, in.Cents, prefix, in.DID, in.WID).QueryRow(func(row pgx.Row) error {
			return row.Scan(&cID, &cFirst, &cMiddle, &cLast, &cS1, &cS2, &cCity, &cState, &cZip, &cPhone,
				&cSince, &cCredit, &cCreditLim, &cDiscount, &cBalance, &cData)
		})
		if err := tx.send(ctx, &b, true); err != nil {
			if in.CLast != "" {
				return fmt.Errorf("customer named %s in %d/%d: %w", in.CLast, in.CWID, in.CDID, err)
			}
			return fmt.Errorf("customer %d/%d/%d: %w", in.CWID, in.CDID, in.CID, err)
		}
		return nil
	})
	if err != nil {
		return retries, fmt.Errorf("payment (w %d, d %d): %w", in.WID, in.DID, err)
	}
	in.Tally(w.tally)
	return retries, nil
}
