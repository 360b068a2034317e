package tpcc

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestCheckDetectsViolations loads one warehouse into a template database,
// then for each case clones it, breaks one invariant, and asserts that
// exactly the conditions that invariant feeds fail. Each condition fails
// in at least one case, so a check that always passes cannot pass here.
func TestCheckDetectsViolations(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	tmpl := s.CreateDatabase(t, "tmpl")
	func() {
		conn, err := pgx.Connect(ctx, tmpl)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if err := Init(ctx, conn, InitOptions{Warehouses: 1, Seed: 11}); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(ctx, URLConnector([]string{tmpl}), LoadOptions{Concurrency: 2}); err != nil {
			t.Fatal(err)
		}
	}()
	admin, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	const k = "ol_w_id = 0 AND ol_d_id = 1 AND ol_o_id = 1 AND ol_number = 1"
	// One clone per case, made up front (a template must have no other
	// sessions); the cases then run in parallel inside one group, which
	// returns when all are done.
	for i := 0; i < 13; i++ {
		if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE case%d TEMPLATE tmpl", i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("cases", func(t *testing.T) {
		for i, tc := range []struct {
			name   string
			break_ []string
			fail   []int
			skip11 bool
		}{
			{"none", nil, nil, false},
			{"w_ytd", []string{"UPDATE warehouse SET w_ytd = w_ytd + 1"}, []int{1, 8}, false},
			{"d_next_o_id", []string{"UPDATE district SET d_next_o_id = 3005 WHERE d_w_id = 0 AND d_id = 1"}, []int{2}, true},
			{"new_order gap", []string{"DELETE FROM new_order WHERE no_w_id = 0 AND no_d_id = 1 AND no_o_id = 2500"}, []int{3, 5, 11}, false},
			{"new_order lowest", []string{"DELETE FROM new_order WHERE no_w_id = 0 AND no_d_id = 1 AND no_o_id = 2101"}, []int{5, 11}, false},
			{"order_line missing", []string{"DELETE FROM order_line WHERE " + k}, []int{4, 6}, false},
			{"o_ol_cnt swapped", []string{
				`UPDATE "order" SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 0 AND o_d_id = 1 AND o_id = 1`,
				`UPDATE "order" SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 0 AND o_d_id = 1 AND o_id = 2`}, []int{6}, false},
			{"ol_delivery_d", []string{"UPDATE order_line SET ol_delivery_d = NULL WHERE " + k}, []int{7}, false},
			{"history warehouse", []string{"UPDATE history SET h_w_id = 1 WHERE ctid = (SELECT min(ctid) FROM history)"}, []int{8, 9}, false},
			{"history district", []string{"UPDATE history SET h_d_id = h_d_id % 10 + 1 WHERE ctid = (SELECT min(ctid) FROM history)"}, []int{9}, false},
			{"c_balance", []string{"UPDATE customer SET c_balance = c_balance + 1, c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 0 AND c_d_id = 1 AND c_id = 1"}, []int{10}, false},
			{"c_ytd_payment", []string{"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 0 AND c_d_id = 1 AND c_id = 7"}, []int{12}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				conn, err := pgx.Connect(ctx, s.URL(fmt.Sprintf("case%d", i)))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				for _, q := range tc.break_ {
					if tag, err := conn.Exec(ctx, q); err != nil || tag.RowsAffected() != 1 && !strings.HasPrefix(q, "UPDATE warehouse") {
						t.Fatalf("%s: %v (%v)", q, err, tag)
					}
				}
				var out bytes.Buffer
				res, err := Check(ctx, conn, CheckOptions{Expensive: true, Out: &out})
				var failed []int
				for _, r := range res {
					if r.Verdict == Fail {
						failed = append(failed, r.Condition.Number)
					}
					if r.Condition.Number == 11 && (r.Verdict == Skip) != tc.skip11 {
						t.Errorf("condition 11 verdict %s, want skip=%v", r.Verdict, tc.skip11)
					}
				}
				if !slices.Equal(failed, tc.fail) {
					t.Errorf("failed conditions %v, want %v\n%s", failed, tc.fail, out.String())
				}
				if (err != nil) != (len(tc.fail) > 0) || (err != nil && !IsViolation(err)) {
					t.Errorf("Check error %v, want a ViolationError iff a condition fails", err)
				}
				for _, n := range tc.fail {
					if !strings.Contains(out.String(), fmt.Sprintf("check %d ", n)) || !strings.Contains(out.String(), ": FAIL (") {
						t.Errorf("report lacks a FAIL line for %d:\n%s", n, out.String())
					}
				}
			})
		}
	})

	// Without --expensive only 1-4 run.
	conn, err := pgx.Connect(ctx, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	res, err := Check(ctx, conn, CheckOptions{})
	if err != nil || len(res) != 5 || res[0].Condition.Number != 0 || res[4].Condition.Number != 4 {
		t.Errorf("default check ran %d conditions (err %v), want the population and 1-4", len(res), err)
	}
	if _, err := Check(ctx, conn, CheckOptions{Warehouses: 2}); err == nil || IsViolation(err) {
		t.Errorf("check --warehouses 2 on a 1-warehouse database: %v, want a usage error", err)
	}

	// Without benchrig's tables (a database CockroachDB's workload
	// loaded): the conditions run all the same, and check 0 compares the
	// warehouse table with --warehouses.
	bare, err := pgx.Connect(ctx, s.URL("case12"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close(ctx)
	if _, err := bare.Exec(ctx, "DROP TABLE benchrig_meta, benchrig_loaded"); err != nil {
		t.Fatal(err)
	}
	res, err = Check(ctx, bare, CheckOptions{Expensive: true})
	if err != nil || len(res) != 12 || res[0].Condition.Number != 1 {
		t.Errorf("check without benchrig tables or --warehouses: %d results, %v; want conditions 1-12", len(res), err)
	}
	var out bytes.Buffer
	res, err = Check(ctx, bare, CheckOptions{Warehouses: 1, Out: &out})
	if err != nil || len(res) != 5 || res[0].Condition.Name != layoutName || res[0].Verdict != Pass {
		t.Errorf("check --warehouses 1 without benchrig tables: %v\n%s", err, out.String())
	}
	out.Reset()
	res, err = Check(ctx, bare, CheckOptions{Warehouses: 2, Out: &out})
	if !IsViolation(err) || res[0].Verdict != Fail || !strings.Contains(out.String(), "warehouse holds 1 ids in 0..0, want 2 in 0..1") {
		t.Errorf("check --warehouses 2 of 1 without benchrig tables: %v\n%s", err, out.String())
	}
}

func TestCheckResultString(t *testing.T) {
	c := Conditions()[0]
	r := CheckResult{Condition: c, Verdict: Fail, Violations: 2, Examples: []string{"1", "2"}}
	if got, want := r.String(), "check 1 W_YTD = sum(D_YTD): FAIL (2 violating rows, e.g. 1, 2)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	e := &ViolationError{Failed: []CheckResult{r}}
	if !strings.Contains(e.Error(), "condition 1 (W_YTD = sum(D_YTD))") {
		t.Errorf("error %q does not name the condition", e.Error())
	}
}
