package functions

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/profile/pipelined"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// fnFingerprints are what the transactions write, table by table, without
// the times they stamp (O_ENTRY_D, H_DATE, OL_DELIVERY_D: only whether it
// is set) and HISTORY's random row ids: two databases that ran the same
// transactions on the same rows have equal fingerprints.
var fnFingerprints = map[string]string{
	"warehouse": `SELECT md5(string_agg(concat_ws(' ', w_id, w_ytd), ',' ORDER BY w_id)) FROM warehouse`,
	"district":  `SELECT md5(string_agg(concat_ws(' ', d_w_id, d_id, d_ytd, d_next_o_id), ',' ORDER BY d_w_id, d_id)) FROM district`,
	"customer": `SELECT md5(string_agg(concat_ws(' ', c_w_id, c_d_id, c_id, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data), ','
ORDER BY c_w_id, c_d_id, c_id)) FROM customer`,
	"history": `SELECT md5(string_agg(concat_ws(' ', h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data), ','
ORDER BY h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_amount, h_data)) FROM history`,
	"order": `SELECT md5(string_agg(concat_ws(' ', o_w_id, o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local), ','
ORDER BY o_w_id, o_d_id, o_id)) FROM "order"`,
	"new_order": `SELECT md5(string_agg(concat_ws(' ', no_w_id, no_d_id, no_o_id), ',' ORDER BY no_w_id, no_d_id, no_o_id)) FROM new_order`,
	"order_line": `SELECT md5(string_agg(concat_ws(' ', ol_w_id, ol_d_id, ol_o_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount,
ol_dist_info, ol_delivery_d IS NULL), ',' ORDER BY ol_w_id, ol_d_id, ol_o_id, ol_number)) FROM order_line`,
	"stock": `SELECT md5(string_agg(concat_ws(' ', s_w_id, s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt), ','
ORDER BY s_w_id, s_i_id)) FROM stock WHERE s_order_cnt > 0`,
}

func fingerprints(t *testing.T, conn *pgx.Conn) map[string]string {
	t.Helper()
	out := map[string]string{}
	for table, q := range fnFingerprints {
		var s *string
		if err := conn.QueryRow(context.Background(), q).Scan(&s); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if s != nil {
			out[table] = *s
		}
	}
	return out
}

// TestFunctionsProfileOnPostgres runs the functions profile's five
// transactions for real. The same transactions (one worker's stream,
// seeded alike, one transaction at a time) run through the pipelined
// profile on one database and the functions profile on an identically
// loaded other: every table must end with the same contents and the
// audit counters agree, so the set-oriented SQL does what the pipelined
// client's statements do, the 1% rollback, remote lines and payments, BC
// credit data, payments and order-statuses by name and Delivery included.
// Each transaction is one round trip on the wire (counted by a proxy).
func TestFunctionsProfileOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads warehouses into a real PostgreSQL")
	}
	ctx := context.Background()
	urlP, srv := tpcctest.LoadWarehousesWith(t, install, 2, 1, pgtest.NoSync())
	urlF := srv.URL("functions_copy")
	{
		// An identical copy, faster than loading twice.
		admin, err := pgx.Connect(ctx, srv.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		src := urlP[strings.LastIndex(urlP, "/")+1 : strings.Index(urlP, "?")]
		if _, err := admin.Exec(ctx, `CREATE DATABASE functions_copy TEMPLATE `+pgx.Identifier{src}.Sanitize()); err != nil {
			t.Fatal(err)
		}
		admin.Close(ctx)
	}
	connP, err := pgx.Connect(ctx, urlP)
	if err != nil {
		t.Fatal(err)
	}
	defer connP.Close(ctx)
	connF, err := pgx.Connect(ctx, urlF)
	if err != nil {
		t.Fatal(err)
	}
	defer connF.Close(ctx)

	t.Run("install is idempotent and concurrent", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				c, err := pgx.Connect(ctx, urlF)
				if err != nil {
					errs[i] = err
					return
				}
				defer c.Close(ctx)
				errs[i] = Install(ctx, c)
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if err := check(ctx, connF); err != nil {
			t.Error(err)
		}
	})

	t.Run("stale functions are refused", func(t *testing.T) {
		if _, err := connF.Exec(ctx, `COMMENT ON FUNCTION benchrig_delivery IS 'benchrig 000000000000'`); err != nil {
			t.Fatal(err)
		}
		if err := check(ctx, connF); err == nil || !strings.Contains(err.Error(), "tpcc init") {
			t.Errorf("stale function accepted: %v", err)
		}
		if err := Install(ctx, connF); err != nil {
			t.Fatal(err)
		}
		if err := check(ctx, connF); err != nil {
			t.Error(err)
		}
	})

	var pipe tpcc.LoadProfile = pipelined.Profile{}
	fn, err := New(tpcc.Postgres)
	if err != nil || fn.Name() != tpcc.ProfileFunctions {
		t.Fatalf("the functions profile is %v, %v", fn, err)
	}
	m, _, err := tpcc.DatabaseMeta(ctx, connF, 0)
	if err != nil {
		t.Fatal(err)
	}
	rw := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
	ro := pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}
	tallyP, tallyF := tpcc.NewTally(2), tpcc.NewTally(2)
	runC := fn.RunConstants(tpcc.NewRand(5, 0), m)
	if pc := pipe.RunConstants(tpcc.NewRand(5, 0), m); pc != runC {
		t.Fatalf("C-Run: pipelined %v, functions %v", pc, runC)
	}
	session := func(stream uint64, tally tpcc.Tally) tpcc.Session {
		return tpcc.Session{Rand: tpcc.NewRand(5, stream), Constants: runC, Warehouses: 2, Dialect: tpcc.Postgres,
			ReadWrite: rw, ReadOnly: ro, Tally: tally}
	}
	exP, exF := pipe.NewExecutor(session(1, tallyP)), fn.NewExecutor(session(1, tallyF))

	proxy := pgtest.StartWireCounter(t, urlF)
	connW, err := pgx.Connect(ctx, proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer connW.Close(ctx)
	trips := map[tpcc.TxnType]map[int64]int{}
	step := func(ty tpcc.TxnType, home tpcc.Home) {
		t.Helper()
		if _, err := exP.Exec(ctx, tpcc.PinnedConn{Conn: connP}, ty, home); err != nil {
			t.Fatalf("pipelined %s: %v", ty, err)
		}
		before := proxy.Snapshot()
		if _, err := exF.Exec(ctx, tpcc.PinnedConn{Conn: connW}, ty, home); err != nil {
			t.Fatalf("functions %s: %v", ty, err)
		}
		if trips[ty] == nil {
			trips[ty] = map[int64]int{}
		}
		trips[ty][proxy.Snapshot().Minus(before).Waits()]++
	}
	// The first call sets the session up (isolation, prepared calls).
	step(tpcc.StockLevelTxn, tpcc.Home{W: 0, D: 1})
	trips = map[tpcc.TxnType]map[int64]int{}
	// Deliveries first, while every district has undelivered orders,
	// then the mix over both warehouses, then enough New-Orders for a
	// rollback (seed 5 draws one within the first hundred) and Deliveries
	// until warehouse 1's districts run dry (skipped districts).
	for i := range 150 {
		home := tpcc.Home{W: int32(i % 2), D: int32(1 + i%10)}
		for _, ty := range []tpcc.TxnType{tpcc.DeliveryTxn, tpcc.NewOrderTxn, tpcc.PaymentTxn, tpcc.OrderStatusTxn, tpcc.StockLevelTxn, tpcc.NewOrderTxn, tpcc.PaymentTxn} {
			step(ty, home)
		}
	}
	tpcctest.CheckConsistent(t, urlF)
	// Skipped districts: warehouse 1's districts 4-10 lose their
	// undelivered orders (which breaks consistency condition 5, checked
	// above), so the next Deliveries find nothing there.
	if _, err := connP.Exec(ctx, `DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id > 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := connF.Exec(ctx, `DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id > 3`); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		step(tpcc.DeliveryTxn, tpcc.Home{W: 1, D: 1})
	}

	t.Run("same rows as pipelined", func(t *testing.T) {
		fpP, fpF := fingerprints(t, connP), fingerprints(t, connF)
		if len(fpP) != len(fnFingerprints) {
			t.Fatalf("fingerprints of %d tables, want %d", len(fpP), len(fnFingerprints))
		}
		for table := range fnFingerprints {
			if fpP[table] != fpF[table] {
				t.Errorf("%s differs after the same transactions: pipelined %s, functions %s", table, fpP[table], fpF[table])
			}
		}
	})

	t.Run("same audit counters", func(t *testing.T) {
		p, f := tallyP.Figures(), tallyF.Figures()
		for _, c := range []struct {
			name string
			p, f int64
		}{
			{"rollbacks", p.Rollbacks, f.Rollbacks},
			{"lines", p.Lines, f.Lines},
			{"remote lines", p.RemoteLines, f.RemoteLines},
			{"remote payments", p.RemotePayments, f.RemotePayments},
			{"payments by name", p.PaymentsByName, f.PaymentsByName},
			{"order-statuses by name", p.OrderStatusesByName, f.OrderStatusesByName},
			{"skipped districts", p.SkippedDistricts, f.SkippedDistricts},
		} {
			t.Logf("%s: %d", c.name, c.f)
			if c.p != c.f {
				t.Errorf("%s: pipelined %d, functions %d", c.name, c.p, c.f)
			}
			if c.f == 0 {
				t.Errorf("%s: none happened, so this test does not cover them", c.name)
			}
		}
	})

	// The plans PostgreSQL made for the functions' statements, as
	// auto_explain reports them to the session (custom plans for the
	// first calls, then the generic one): no sequential scan of a table
	// that grows with the warehouses, and New-Order's stock UPDATE driven
	// by the sorted input in a nested loop, so that it locks the rows in
	// (S_W_ID, S_I_ID) order and concurrent New-Orders cannot deadlock.
	t.Run("plans", func(t *testing.T) {
		cfg, err := pgx.ParseConfig(urlF)
		if err != nil {
			t.Fatal(err)
		}
		var plans []string
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans = append(plans, n.Message) }
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		for _, s := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
			`SET auto_explain.log_nested_statements = on`, `SET auto_explain.log_level = notice`} {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Skipf("auto_explain: %s: %v", s, err)
			}
		}
		ex := fn.NewExecutor(session(9, tpcc.NewTally(2)))
		for i := range 8 {
			for ty := range tpcc.NumTxnTypes {
				if _, err := ex.Exec(ctx, tpcc.PinnedConn{Conn: c}, ty, tpcc.Home{W: int32(i % 2), D: 1}); err != nil {
					t.Fatalf("%s: %v", ty, err)
				}
			}
		}
		stockUpdates := 0
		for _, p := range plans {
			for _, table := range []string{"stock", "customer", `"order"`, "order_line", "new_order", "history"} {
				if strings.Contains(p, "Seq Scan on "+table+" ") {
					t.Errorf("a sequential scan of %s:\n%s", table, p)
				}
			}
			if i := strings.Index(p, "Update on stock"); i >= 0 {
				stockUpdates++
				plan := p[i:]
				loop, sorted, index := strings.Index(plan, "Nested Loop"), strings.Index(plan, "Sort"), strings.Index(plan, "stock_pkey")
				if loop < 0 || sorted < loop || index < sorted {
					t.Errorf("New-Order's stock UPDATE is not a nested loop over the sorted lines:\n%s", p)
				}
			}
		}
		if stockUpdates < 8 {
			t.Errorf("%d plans of New-Order's stock UPDATE seen, want 8 (%d plans in all)", stockUpdates, len(plans))
		}
		if testing.Verbose() && len(plans) > 0 {
			t.Logf("%d plans; New-Order's last:\n%s", len(plans), lastContaining(plans, "Update on stock"))
		}
	})

	t.Run("one round trip", func(t *testing.T) {
		t.Logf("round trips (count: transactions): %v", trips)
		for ty := range tpcc.NumTxnTypes {
			if len(trips[ty]) != 1 || trips[ty][1] == 0 {
				t.Errorf("%s: round trips %v, want 1 each", ty, trips[ty])
			}
		}
	})
}

// TestFunctionsProfileRefusedOnCockroach: the profile runs PL/pgSQL, so a
// run against CockroachDB is refused with the reason before it starts.
func TestFunctionsProfileRefusedOnCockroach(t *testing.T) {
	for _, tc := range []struct {
		d      tpcc.Dialect
		refuse bool
	}{
		{tpcc.Cockroach, true},
		{tpcc.Postgres, false},
	} {
		_, err := New(tc.d)
		if (err != nil) != tc.refuse || (err != nil && !strings.Contains(err.Error(), "PL/pgSQL")) {
			t.Errorf("on %s: %v, want refused %v with the reason", tc.d, err, tc.refuse)
		}
	}
}

// install is tpcc.InitOptions.Install with this profile's functions, as
// tpcc/profile.Install gives it on PostgreSQL.
func install(ctx context.Context, db tpcc.Execer, _ tpcc.Dialect) error { return Install(ctx, db) }

func lastContaining(ss []string, sub string) string {
	for i := len(ss) - 1; i >= 0; i-- {
		if strings.Contains(ss[i], sub) {
			return ss[i]
		}
	}
	return ""
}
