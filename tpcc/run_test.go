package tpcc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// loadOneWarehouse starts a real PostgreSQL, creates the schema and loads one
// warehouse with the DATA side's loader.
func loadOneWarehouse(t testing.TB, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	if err := pgtest.Available(); err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	srv := pgtest.Start(t, opts...)
	url := srv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := Init(ctx, conn, InitOptions{Warehouses: 1, Seed: 42, Dialect: Postgres}); err != nil {
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

// TestRunAgainstPostgres runs both modes against a real PostgreSQL with
// one loaded warehouse and requires the database to stay consistent
// (clause 3.3.2, all twelve conditions) and the output to be complete.
func TestRunAgainstPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := loadOneWarehouse(t, pgtest.NoSync())
	for _, tc := range []struct {
		name string
		cfg  RunConfig
	}{
		{"no-wait", RunConfig{Wait: 0, Workers: 4, Duration: 8 * time.Second, Ramp: time.Second}},
		{"wait", RunConfig{Wait: 0.01, Duration: 10 * time.Second, Ramp: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.URLs = []string{url}
			cfg.Warehouses = 1
			cfg.Seed = 7
			var out, hist bytes.Buffer
			cfg.Out, cfg.Histograms = &out, &hist
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
			checkConsistent(t, url)
		})
	}
}
