package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Condition is one consistency condition of clause 3.3.2. Query returns
// the violating rows (keys rendered as text); an empty result passes.
type Condition struct {
	Number    int
	Name      string
	Expensive bool // full scans of order_line/customer/history: only with --expensive
	// LoadOnly conditions hold only until the first Delivery (clause
	// 3.3.2.11 counts orders minus undelivered orders).
	LoadOnly bool
	query    string
}

// Conditions returns the twelve conditions of clause 3.3.2 in order.
// Conditions 1-4 are required after a run as well as after population;
// the others are required after population.
func Conditions() []Condition {
	return []Condition{
		{Number: 1, Name: "W_YTD = sum(D_YTD)",
			// Clause 3.3.2.1: per warehouse.
			query: `SELECT w.w_id::text FROM warehouse w
LEFT JOIN (SELECT d_w_id, sum(d_ytd) s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM d.s`},
		{Number: 2, Name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
			// Clause 3.3.2.2: per district; the NEW-ORDER part applies
			// only where the district has undelivered orders.
			query: `SELECT d.d_w_id::text || '/' || d.d_id::text FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) m FROM "order" GROUP BY 1, 2) o ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) m FROM new_order GROUP BY 1, 2) n ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE o.m IS DISTINCT FROM d.d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d.d_next_o_id - 1)`},
		{Number: 3, Name: "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)",
			// Clause 3.3.2.3: per district with new_order rows.
			query: `SELECT no_w_id::text || '/' || no_d_id::text FROM new_order GROUP BY no_w_id, no_d_id
HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)`},
		{Number: 4, Name: "sum(O_OL_CNT) = count(ORDER-LINE)",
			// Clause 3.3.2.4: per district. FULL JOIN: order lines of a
			// district without orders are a violation too.
			query: `SELECT coalesce(o.w, l.w)::text || '/' || coalesce(o.d, l.d)::text FROM
(SELECT o_w_id w, o_d_id d, sum(o_ol_cnt) s FROM "order" GROUP BY 1, 2) o
FULL JOIN (SELECT ol_w_id w, ol_d_id d, count(*) c FROM order_line GROUP BY 1, 2) l ON o.w = l.w AND o.d = l.d
WHERE o.s IS DISTINCT FROM l.c`},
		{Number: 5, Name: "O_CARRIER_ID IS NULL iff a NEW-ORDER row exists", Expensive: true,
			// Clause 3.3.2.5, both directions: an undelivered order without
			// its new_order row, a delivered one with it, and new_order rows
			// without an order.
			query: `SELECT o.o_w_id::text || '/' || o.o_d_id::text || '/' || o.o_id::text FROM "order" o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
UNION ALL
SELECT 'new_order ' || n.no_w_id::text || '/' || n.no_d_id::text || '/' || n.no_o_id::text FROM new_order n
WHERE NOT EXISTS (SELECT 1 FROM "order" o WHERE o.o_w_id = n.no_w_id AND o.o_d_id = n.no_d_id AND o.o_id = n.no_o_id)`},
		{Number: 6, Name: "O_OL_CNT = count(ORDER-LINE) per order", Expensive: true,
			// Clause 3.3.2.6, plus order lines whose order is missing.
			query: `SELECT o.o_w_id::text || '/' || o.o_d_id::text || '/' || o.o_id::text FROM "order" o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) c FROM order_line GROUP BY 1, 2, 3) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE l.c IS DISTINCT FROM o.o_ol_cnt
UNION ALL
SELECT DISTINCT 'order_line ' || l.ol_w_id::text || '/' || l.ol_d_id::text || '/' || l.ol_o_id::text FROM order_line l
WHERE NOT EXISTS (SELECT 1 FROM "order" o WHERE o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id)`},
		{Number: 7, Name: "OL_DELIVERY_D IS NULL iff O_CARRIER_ID IS NULL", Expensive: true,
			// Clause 3.3.2.7.
			query: `SELECT ol.ol_w_id::text || '/' || ol.ol_d_id::text || '/' || ol.ol_o_id::text || '/' || ol.ol_number::text FROM order_line ol
JOIN "order" o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = ol.ol_o_id
WHERE (ol.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)`},
		{Number: 8, Name: "W_YTD = sum(H_AMOUNT)", Expensive: true,
			// Clause 3.3.2.8: history by h_w_id (the paying warehouse).
			query: `SELECT w.w_id::text FROM warehouse w
LEFT JOIN (SELECT h_w_id, sum(h_amount) s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM h.s`},
		{Number: 9, Name: "D_YTD = sum(H_AMOUNT)", Expensive: true,
			// Clause 3.3.2.9: history by (h_w_id, h_d_id).
			query: `SELECT d.d_w_id::text || '/' || d.d_id::text FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, sum(h_amount) s FROM history GROUP BY 1, 2) h
  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE d.d_ytd IS DISTINCT FROM h.s`},
		{Number: 10, Name: "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", Expensive: true,
			// Clause 3.3.2.10: order lines of the customer's orders that
			// are delivered; history by the paying customer (h_c_*).
			query: `WITH ol AS (SELECT o.o_w_id w, o.o_d_id d, o.o_c_id c, sum(l.ol_amount) s
    FROM "order" o JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
    WHERE l.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3),
  h AS (SELECT h_c_w_id w, h_c_d_id d, h_c_id c, sum(h_amount) s FROM history GROUP BY 1, 2, 3)
SELECT c.c_w_id::text || '/' || c.c_d_id::text || '/' || c.c_id::text FROM customer c
LEFT JOIN ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
LEFT JOIN h ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.c = c.c_id
WHERE c.c_balance <> coalesce(ol.s, 0) - coalesce(h.s, 0)`},
		{Number: 11, Name: "count(ORDER) - count(NEW-ORDER) = 2100", Expensive: true, LoadOnly: true,
			// Clause 3.3.2.11: per district, true of the initial
			// population (every Delivery adds one to the difference).
			query: `SELECT o.w::text || '/' || o.d::text FROM (SELECT o_w_id w, o_d_id d, count(*) c FROM "order" GROUP BY 1, 2) o
LEFT JOIN (SELECT no_w_id w, no_d_id d, count(*) c FROM new_order GROUP BY 1, 2) n ON n.w = o.w AND n.d = o.d
WHERE o.c - coalesce(n.c, 0) <> 2100`},
		{Number: 12, Name: "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", Expensive: true,
			// Clause 3.3.2.12, over all customers rather than a sample.
			query: `WITH ol AS (SELECT o.o_w_id w, o.o_d_id d, o.o_c_id c, sum(l.ol_amount) s
    FROM "order" o JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
    WHERE l.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3)
SELECT c.c_w_id::text || '/' || c.c_d_id::text || '/' || c.c_id::text FROM customer c
LEFT JOIN ol ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
WHERE c.c_balance + c.c_ytd_payment <> coalesce(ol.s, 0)`},
	}
}

// Verdict is the outcome of one condition.
type Verdict string

const (
	Pass Verdict = "PASS"
	Fail Verdict = "FAIL"
	// Skip: not applicable (a LoadOnly condition after a run).
	Skip Verdict = "SKIP"
)

// CheckResult is one condition's outcome.
type CheckResult struct {
	Condition  Condition
	Verdict    Verdict
	Violations int64    // violating rows (districts, orders, customers...)
	Examples   []string // up to maxExamples keys, e.g. "3/7" = w/d
	Elapsed    time.Duration
}

const maxExamples = 5

// String is the report line: check <n> <name>: PASS|FAIL (detail).
func (r CheckResult) String() string {
	detail := r.Elapsed.Round(time.Millisecond).String()
	switch {
	case r.Verdict == Fail && r.Condition.Name == layoutName:
		detail = strings.Join(r.Examples, "; ")
	case r.Verdict == Fail && r.Condition.Number == 0:
		detail = fmt.Sprintf("%d not loaded, e.g. %s; re-run tpcc load", r.Violations, strings.Join(r.Examples, ", "))
	case r.Verdict == Fail:
		detail = fmt.Sprintf("%d violating rows, e.g. %s", r.Violations, strings.Join(r.Examples, ", "))
	case r.Verdict == Skip:
		detail = "holds only until the first Delivery; the database has run transactions"
	}
	return fmt.Sprintf("check %d %s: %s (%s)", r.Condition.Number, r.Condition.Name, r.Verdict, detail)
}

// ViolationError is returned by Check when a condition fails. It names
// the failed conditions.
type ViolationError struct {
	Failed []CheckResult
}

func (e *ViolationError) Error() string {
	names := make([]string, len(e.Failed))
	for i, f := range e.Failed {
		names[i] = fmt.Sprintf("%d (%s)", f.Condition.Number, f.Condition.Name)
	}
	return "consistency check failed: condition " + strings.Join(names, ", ")
}

// CheckOptions configure Check.
type CheckOptions struct {
	// Expensive adds conditions 5-12 to 1-4.
	Expensive bool
	// Only, when non-empty, runs just these condition numbers.
	Only []int
	// Out receives one line per condition as it completes; nil for none.
	Out io.Writer
	// Warehouses, when set, must equal the count stored by init or,
	// without benchrig_meta (a database loaded by CockroachDB's
	// workload), is checked against the warehouse table: w_id 0..W-1.
	Warehouses int
	// Dialect picks the snapshot: REPEATABLE READ on PostgreSQL,
	// CockroachDB's default SERIALIZABLE.
	Dialect Dialect
}

// populationName is reported first, as check 0, when the database
// was loaded by benchrig: the conditions of clause 3.3.2 can all hold on a
// half-loaded database, which is not a valid population. Without
// benchrig's tables, layoutName is check 0 when --warehouses is given.
const (
	populationName = "all warehouses loaded (benchrig_loaded)"
	layoutName     = "warehouses 0..W-1 and 100,000 items present"
)

// Check evaluates the consistency conditions of clause 3.3.2 on one
// snapshot (a REPEATABLE READ, read-only transaction on PostgreSQL; a
// serializable one on CockroachDB), so that a check run while a workload
// is still writing does not see half a transaction. It returns every
// result and, if any condition failed, a *ViolationError.
func Check(ctx context.Context, conn *pgx.Conn, o CheckOptions) ([]CheckResult, error) {
	iso := pgx.RepeatableRead
	if o.Dialect == Cockroach {
		iso = pgx.Serializable
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: iso, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("check: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	var results []CheckResult
	var failed []CheckResult
	if len(o.Only) == 0 {
		r, ok, err := population(ctx, tx, o.Warehouses)
		if err != nil {
			return nil, err
		}
		if ok {
			if o.Out != nil {
				fmt.Fprintln(o.Out, r.String())
			}
			results = append(results, r)
			if r.Verdict == Fail {
				failed = append(failed, r)
			}
		}
	}
	// A database that has run transactions: any district's next order id
	// moved past the 3,000 orders of population.
	var ran bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM district WHERE d_next_o_id > 3001)`).Scan(&ran); err != nil {
		return nil, fmt.Errorf("check: read district: %w", err)
	}
	for _, c := range Conditions() {
		if !selected(c, o) {
			continue
		}
		start := time.Now()
		r := CheckResult{Condition: c, Verdict: Pass}
		if c.LoadOnly && ran {
			r.Verdict = Skip
		} else {
			n, ex, err := violations(ctx, tx, c.query)
			if err != nil {
				return results, fmt.Errorf("check %d (%s): %w", c.Number, c.Name, err)
			}
			if n > 0 {
				r.Verdict, r.Violations, r.Examples = Fail, n, ex
				failed = append(failed, r)
			}
		}
		r.Elapsed = time.Since(start)
		if o.Out != nil {
			fmt.Fprintln(o.Out, r.String())
		}
		results = append(results, r)
	}
	if err := tx.Commit(ctx); err != nil {
		return results, fmt.Errorf("check: commit: %w", err)
	}
	if len(failed) > 0 {
		return results, &ViolationError{Failed: failed}
	}
	return results, nil
}

func selected(c Condition, o CheckOptions) bool {
	if len(o.Only) > 0 {
		for _, n := range o.Only {
			if n == c.Number {
				return true
			}
		}
		return false
	}
	return !c.Expensive || o.Expensive
}

// population checks benchrig_loaded against the stored warehouse count.
// Without benchrig metadata (loaded by another tool, such as
// CockroachDB's workload, or the meta table dropped) it checks the
// warehouse and item tables against want (layout); ok is false when there
// is nothing to compare.
func population(ctx context.Context, tx pgx.Tx, want int) (CheckResult, bool, error) {
	start := time.Now()
	// A savepoint: on a database without our tables the failed read must
	// not abort the snapshot transaction.
	sp, err := tx.Begin(ctx)
	if err != nil {
		return CheckResult{}, false, fmt.Errorf("check: savepoint: %w", err)
	}
	m, err := ReadMeta(ctx, sp)
	if errors.Is(err, ErrNoMeta) {
		_ = sp.Rollback(ctx)
		return layout(ctx, tx, want)
	}
	if err != nil {
		return CheckResult{}, false, fmt.Errorf("check: %w", err)
	}
	if want != 0 && want != m.Warehouses {
		return CheckResult{}, false, fmt.Errorf("check: %w: --warehouses %d, but the database was initialised with %d", ErrMismatch, want, m.Warehouses)
	}
	rows, err := sp.Query(ctx, `SELECT w_id FROM `+loadedTable+` ORDER BY w_id`)
	if err != nil {
		return CheckResult{}, false, fmt.Errorf("check: read %s: %w", loadedTable, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return CheckResult{}, false, fmt.Errorf("check: read %s: %w", loadedTable, err)
	}
	if err := sp.Commit(ctx); err != nil {
		return CheckResult{}, false, fmt.Errorf("check: release savepoint: %w", err)
	}
	have := make(map[int]bool, len(ids))
	for _, id := range ids {
		have[int(id)] = true
	}
	r := CheckResult{Condition: Condition{Number: 0, Name: populationName}, Verdict: Pass}
	for w := itemsUnit; w < m.Warehouses; w++ {
		if !have[w] {
			r.Violations++
			if len(r.Examples) < maxExamples {
				if w == itemsUnit {
					r.Examples = append(r.Examples, "item")
				} else {
					r.Examples = append(r.Examples, "warehouse "+strconv.Itoa(w))
				}
			}
		}
	}
	if r.Violations > 0 {
		r.Verdict = Fail
	}
	r.Elapsed = time.Since(start)
	return r, true, nil
}

// layout checks, without benchrig's bookkeeping, that the warehouse
// table holds exactly w_id 0..want-1 (workload's layout) and the item
// table its 100,000 rows; ok is false when want is 0.
func layout(ctx context.Context, tx pgx.Tx, want int) (CheckResult, bool, error) {
	if want == 0 {
		return CheckResult{}, false, nil
	}
	start := time.Now()
	var lo, hi, n, items int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(min(w_id), -1), coalesce(max(w_id), -1), count(*), (SELECT count(*) FROM item) FROM warehouse`).
		Scan(&lo, &hi, &n, &items); err != nil {
		return CheckResult{}, false, fmt.Errorf("check: read warehouse, item: %w", err)
	}
	r := CheckResult{Condition: Condition{Number: 0, Name: layoutName}, Verdict: Pass}
	if lo != 0 || hi != int64(want)-1 || n != int64(want) {
		r.Violations++
		r.Examples = append(r.Examples, fmt.Sprintf("warehouse holds %d ids in %d..%d, want %d in 0..%d", n, lo, hi, want, want-1))
	}
	if items != NumItems {
		r.Violations++
		r.Examples = append(r.Examples, fmt.Sprintf("item holds %d rows, want %d", items, NumItems))
	}
	if r.Violations > 0 {
		r.Verdict = Fail
	}
	r.Elapsed = time.Since(start)
	return r, true, nil
}

// violations counts the query's rows and keeps the first few keys, in one
// pass over the result.
func violations(ctx context.Context, tx pgx.Tx, query string) (int64, []string, error) {
	rows, err := tx.Query(ctx, query)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var n int64
	var ex []string
	for rows.Next() {
		n++
		if len(ex) < maxExamples {
			var k string
			if err := rows.Scan(&k); err != nil {
				return 0, nil, err
			}
			ex = append(ex, k)
		}
	}
	return n, ex, rows.Err()
}

// IsViolation reports whether err is (or wraps) a consistency violation.
func IsViolation(err error) bool {
	var v *ViolationError
	return errors.As(err, &v)
}
