package tpcc

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/result"
)

// loadOneWarehouse starts a real PostgreSQL, creates the schema and loads one
// warehouse with the DATA side's loader.
func loadOneWarehouse(t testing.TB, opts ...pgtest.Option) (string, *pgtest.Server) {
	return loadWarehouses(t, 1, 1, opts...)
}

// loadWarehouses loads w warehouses into a fresh database of a new server.
func loadWarehouses(t testing.TB, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	srv := pgtest.Start(t, opts...)
	url := srv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := Init(ctx, conn, InitOptions{Warehouses: w, Seed: 42, Dialect: Postgres, Partitions: partitions}); err != nil {
		t.Fatalf("init: %v", err)
	}
	if _, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2, Dialect: Postgres}); err != nil {
		t.Fatalf("load: %v", err)
	}
	return url, srv
}

// benchDatabase is a loaded warehouse on a durable server: benchmarks keep
// fsync, since commit costs are part of what the database spends.
func benchDatabase(b *testing.B) (string, *pgtest.Server) {
	return loadOneWarehouse(b)
}

func checkConsistent(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out bytes.Buffer
	if _, err := Check(ctx, conn, CheckOptions{Expensive: true, Out: &out}); err != nil {
		t.Fatalf("consistency check after the run: %v\n%s", err, out.String())
	}
}

// TestRunAgainstPostgres runs both modes, and the functions profile at
// repeatable read and read committed, against a real PostgreSQL with one
// loaded warehouse and requires the database to stay consistent (clause
// 3.3.2, all twelve conditions), the output to be complete and to name the
// profile that ran.
func TestRunAgainstPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := loadOneWarehouse(t, pgtest.NoSync())
	for _, tc := range []struct {
		name string
		cfg  RunConfig
		// noConflicts: read committed has no serialization failures
		// to retry (only deadlocks, which locking in order avoids).
		noConflicts bool
	}{
		{name: "no-wait", cfg: RunConfig{Wait: 0, Workers: 4, Duration: 8 * time.Second, Ramp: time.Second}},
		{name: "wait", cfg: RunConfig{Wait: 0.01, Duration: 10 * time.Second, Ramp: time.Second}},
		{name: "functions no-wait", cfg: RunConfig{Profile: ProfileFunctions, Wait: 0, Workers: 4, Duration: 8 * time.Second, Ramp: time.Second}},
		{name: "functions read committed", cfg: RunConfig{Profile: ProfileFunctions, Isolation: pgx.ReadCommitted, Wait: 0, Workers: 4,
			Duration: 6 * time.Second, Ramp: time.Second}, noConflicts: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URLs = []string{url}
			cfg.Warehouses = 1
			cfg.Seed = 7
			var out, hist, tickBuf bytes.Buffer
			cfg.Out, cfg.Histograms = &out, &hist
			format := result.TicksJSONLines
			if cfg.Wait != 0 {
				format = result.TicksCSV
			}
			cfg.Ticks = result.NewTickWriter(&tickBuf, format)
			res, err := Run(context.Background(), cfg)
			if err != nil {
				var ae *AuditError
				if !errors.As(err, &ae) {
					t.Fatalf("run: %v\n%s", err, out.String())
				}
				t.Logf("audit: %v", err) // judged below, check by check
			}
			t.Logf("output:\n%s", out.String())
			for ty := range numTxnTypes {
				if res.Counts[ty] == 0 {
					t.Errorf("no %s completed", ty)
				}
				if res.Errors[ty] != 0 {
					t.Errorf("%d %s errors", res.Errors[ty], ty)
				}
			}
			if res.TpmC <= 0 {
				t.Errorf("tpmC = %v", res.TpmC)
			}
			if want := cmp.Or(cfg.Profile, ProfilePipelined); res.Profile != want || !strings.Contains(out.String(), "Profile "+string(want)+",") {
				t.Errorf("profile %q ran, want %q named in the output", res.Profile, want)
			}
			if cfg.Wait == 0 && !tc.noConflicts {
				// Four workers on one warehouse's row under REPEATABLE
				// READ conflict constantly: the conflicts must surface as
				// retries, never as errors (checked above).
				var retries int64
				for _, n := range res.Retries {
					retries += n
				}
				if retries == 0 {
					t.Error("no serialization failure retried in a contended no-wait run")
				}
			}
			for _, want := range []string{progressHeader, totalHeader + "__total", tpmcHeader, "Audit check 9.2.2.5.1: "} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q", want)
				}
			}
			// The histogram file must be readable by merge and agree with
			// the run's own count of New-Orders.
			ticks, err := histogram.Decode(&hist)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tk := range ticks {
				names[tk.Name] = true
			}
			if len(names) != 5 {
				t.Errorf("histogram names %v, want all five", names)
			}
			hr, err := histogram.NewResult(1, ticks)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := hr.Count(histogram.NewOrder), res.Counts[NewOrderTxn]; got != want {
				t.Errorf("histogram file has %d new orders, run counted %d", got, want)
			}
			checkRunTicks(t, format, tickBuf.String(), out.String(), res)
			checkConsistent(t, url)
		})
	}

	// --start-at and --ramp: the run waits for the start time, no tick
	// of the ramp reaches the histogram file, and every name gets a final
	// line at shutdown.
	t.Run("start-at and ramp", func(t *testing.T) {
		var out, hist, tickBuf bytes.Buffer
		startAt := time.Now().Add(1500 * time.Millisecond)
		res, err := Run(context.Background(), RunConfig{
			URLs: []string{url}, Warehouses: 1, Wait: 0, Workers: 2,
			StartAt: startAt, Ramp: 2 * time.Second, Duration: 2 * time.Second,
			DisplayEvery: 500 * time.Millisecond, Out: &out, Histograms: &hist, Seed: 3,
			Ticks: result.NewTickWriter(&tickBuf, result.TicksJSONLines),
		})
		if err != nil && !errors.As(err, new(*AuditError)) {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
		for _, want := range []string{"Waiting ", "for --start-at", "Started ", "Ramp-up done after 2"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		ticks, err := histogram.Decode(&hist)
		if err != nil {
			t.Fatal(err)
		}
		perName := map[string]int{}
		rampEnd := startAt.Add(2 * time.Second)
		for _, tk := range ticks {
			perName[tk.Name]++
			if tk.Now.Add(-tk.Elapsed).Before(rampEnd) {
				t.Errorf("%s tick [%s, %s) starts before the ramp ended at %s", tk.Name,
					tk.Now.Add(-tk.Elapsed).Format(time.StampMilli), tk.Now.Format(time.StampMilli), rampEnd.Format(time.StampMilli))
			}
		}
		for _, name := range histogram.TPCCNames() {
			// 2 s of 500 ms ticks, plus the final line.
			if n := perName[name]; n < 4 || n > 6 {
				t.Errorf("%s: %d ticks, want about 5", name, n)
			}
		}
		if res.Elapsed < 1900*time.Millisecond || res.Elapsed > 3*time.Second {
			t.Errorf("measured %v, want about the 2s duration", res.Elapsed)
		}
		checkRampTicks(t, tickBuf.String(), rampEnd)
		checkRunTicks(t, result.TicksJSONLines, tickBuf.String(), out.String(), res)
	})

	// Errors: without --tolerate-errors the first one stops the run and
	// names the URL and transaction; with it, they are counted and shown,
	// and the run goes on. The stock table is renamed away so that every
	// New-Order fails (a real server error, 42P01).
	t.Run("errors", func(t *testing.T) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `ALTER TABLE stock RENAME TO stock_away`); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := conn.Exec(ctx, `ALTER TABLE stock_away RENAME TO stock`); err != nil {
				t.Fatal(err)
			}
		}()
		cfg := RunConfig{URLs: []string{url}, Warehouses: 1, Wait: 0, Workers: 2, Duration: 2 * time.Second, Seed: 1}
		_, err = Run(ctx, cfg)
		if err == nil || !strings.Contains(err.Error(), "stopped by an error") ||
			!strings.Contains(err.Error(), "new-order") || !strings.Contains(err.Error(), "127.0.0.1") {
			t.Errorf("intolerant run: %v, want it stopped by the new-order error on 127.0.0.1", err)
		}
		var out bytes.Buffer
		cfg.TolerateErrors, cfg.Out = true, &out
		res, err := Run(ctx, cfg)
		if err != nil && !errors.As(err, new(*AuditError)) {
			t.Fatalf("tolerant run: %v", err)
		}
		if res.Errors[NewOrderTxn] == 0 || res.Counts[NewOrderTxn] != 0 || res.Counts[PaymentTxn] == 0 {
			t.Errorf("errors %v counts %v: want New-Order errors only, other transactions done", res.Errors, res.Counts)
		}
		if !strings.Contains(out.String(), "error(s) since the last line, latest: ") {
			t.Errorf("tolerated errors not shown:\n%s", out.String())
		}
	})

	// Clause 5.3: response time runs from when the terminal submits, so
	// waiting for the only connection counts. Ten terminals that hardly
	// wait share one connection: their mean response time must be several
	// times that of one worker alone on it.
	t.Run("queueing counts in response time", func(t *testing.T) {
		meanOf := func(cfg RunConfig) float64 {
			cfg.URLs, cfg.Warehouses, cfg.Duration, cfg.Seed = []string{url}, 1, 3*time.Second, 5
			res, err := Run(context.Background(), cfg)
			if err != nil && !errors.As(err, new(*AuditError)) {
				t.Fatal(err)
			}
			all := histogram.NewHistogram()
			for _, h := range res.Result.Cumulative {
				all.Merge(h)
			}
			return all.Mean()
		}
		alone := meanOf(RunConfig{Wait: 0, Workers: 1, Conns: 1})
		queued := meanOf(RunConfig{Wait: 0.0001, Conns: 1})
		t.Logf("mean response time: 1 worker %.2f ms, 10 terminals on 1 connection %.2f ms", alone/1e6, queued/1e6)
		if queued < 3*alone {
			t.Errorf("queued terminals' mean %.2f ms is not several times the lone worker's %.2f ms: queueing is not measured",
				queued/1e6, alone/1e6)
		}
	})
}

// TestRunPartitionAffinity loads two warehouses in two partitions and runs
// a host driving only partition 1 over two URLs: only warehouse 1's
// districts may take orders, remote payments and order lines (to
// warehouse 0) must happen, and the database must stay consistent.
func TestRunPartitionAffinity(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two warehouses into a real PostgreSQL")
	}
	url, _ := loadWarehouses(t, 2, 2, pgtest.NoSync())
	ctx := context.Background()
	var out bytes.Buffer
	res, err := Run(ctx, RunConfig{
		URLs: []string{url, url}, Warehouses: 2, Partitions: 2, Affinity: []int{1},
		Wait: 0, Workers: 3, Duration: 6 * time.Second, Seed: 11, Out: &out,
	})
	if err != nil {
		var ae *AuditError
		if !errors.As(err, &ae) {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
	}
	if res.Efficiency <= 0 || res.Result.Warehouses != 1 {
		t.Errorf("efficiency %v over %d warehouses, want > 0 over this host's 1", res.Efficiency, res.Result.Warehouses)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var moved0, moved1 int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE d_w_id = 0 AND d_next_o_id > 3001),
count(*) FILTER (WHERE d_w_id = 1 AND d_next_o_id > 3001) FROM district`).Scan(&moved0, &moved1); err != nil {
		t.Fatal(err)
	}
	if moved0 != 0 || moved1 == 0 {
		t.Errorf("districts with new orders: warehouse 0: %d, warehouse 1: %d; want only warehouse 1's", moved0, moved1)
	}
	var remotePay, remoteLines int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM history WHERE h_w_id = 1 AND h_c_w_id = 0),
(SELECT count(*) FROM order_line WHERE ol_w_id = 1 AND ol_supply_w_id = 0)`).Scan(&remotePay, &remoteLines); err != nil {
		t.Fatal(err)
	}
	if remotePay == 0 || remoteLines == 0 {
		t.Errorf("remote payments %d, remote order lines %d: want both > 0 (clauses 2.5.1.2, 2.4.1.5.2)", remotePay, remoteLines)
	}
	checkConsistent(t, url)

	// A --warehouses that differs from the loaded count is refused up front.
	_, err = Run(ctx, RunConfig{URLs: []string{url}, Warehouses: 3, Wait: 0, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), "database holds 2") {
		t.Errorf("--warehouses 3 on 2 loaded: %v", err)
	}
}

// TestRunSerializableNoWait is issue 14's failing run: eight no-wait
// workers on four warehouses under SERIALIZABLE, where conflicts are the
// normal case (as on CockroachDB). Retrying at once used up a New-Order's
// 100 retries in 0.6 s and stopped the run; with backoff and jitter the
// run must last its 30 s without --tolerate-errors and report its
// retries per transaction type in the summary and the result JSON.
func TestRunSerializableNoWait(t *testing.T) {
	if testing.Short() {
		t.Skip("loads four warehouses into a real PostgreSQL and runs 30 s")
	}
	url, _ := loadWarehouses(t, 4, 1, pgtest.NoSync())
	var out bytes.Buffer
	procsBefore := runtime.GOMAXPROCS(0)
	res, err := Run(context.Background(), RunConfig{
		URLs: []string{url}, Warehouses: 4, Wait: 0, Workers: 8, Duration: 30 * time.Second,
		Isolation: pgx.Serializable, Seed: 14, DisplayEvery: 5 * time.Second, Out: &out,
		Procs: ProcsFollowDemand, // as tpcc run's default: the governor runs beside a real run
	})
	if err != nil {
		t.Fatalf("serializable no-wait run: %v\n%s", err, out.String())
	}
	if p := runtime.GOMAXPROCS(0); p != procsBefore || !strings.Contains(out.String(), "Client Ps (GOMAXPROCS) followed the demand: at most ") {
		t.Errorf("GOMAXPROCS %d after the run (want %d restored); the report must say what the run used:\n%s", p, procsBefore, out.String())
	}
	// And the result JSON, where the report and comparisons read it.
	if cp := NewResult(RunConfig{}, res, nil).ClientProcs; cp == nil || !cp.FollowedDemand || cp.Peak < 1 || cp.Peak > cp.Max {
		t.Errorf("result's client_procs %+v: want the governor's, at most Max", cp)
	}
	var retries, errs int64
	for ty := range numTxnTypes {
		retries += res.Retries[ty]
		errs += res.Errors[ty]
	}
	t.Logf("%.0f tpmC, %d retries (%v), %d errors", res.TpmC, retries, res.Retries, errs)
	if res.Isolation != pgx.Serializable || retries == 0 || errs != 0 || res.Counts[NewOrderTxn] == 0 {
		t.Errorf("isolation %q, %d retries, %d errors, %d new orders: want serializable, conflicts retried, none failing",
			res.Isolation, retries, errs, res.Counts[NewOrderTxn])
	}
	if !strings.Contains(out.String(), "Retries (serialization failures and deadlocks, retried with backoff): newOrder ") ||
		!strings.Contains(out.String(), "per 1,000 transactions") {
		t.Errorf("summary lacks the retries per transaction type:\n%s", out.String())
	}
	doc := NewResult(RunConfig{Warehouses: 4}, res, nil)
	if doc.Retries == nil || *doc.Retries != retries || doc.Isolation != "serializable" ||
		*doc.Transactions[NewOrderTxn].Retries != res.Retries[NewOrderTxn] {
		t.Errorf("result: retries %v, isolation %q, new-order retries %v; want %d, serializable, %d",
			doc.Retries, doc.Isolation, doc.Transactions[NewOrderTxn].Retries, retries, res.Retries[NewOrderTxn])
	}
	checkConsistent(t, url)
}
