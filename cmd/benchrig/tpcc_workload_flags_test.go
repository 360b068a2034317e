package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

func TestWithDatabase(t *testing.T) {
	got, err := withDatabase([]string{"postgres://root@n1:26257?sslmode=disable", "postgresql://u@h/bench", "host=h dbname=x"}, "tpcc", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"postgres://root@n1:26257/tpcc?sslmode=disable", "postgresql://u@h/bench", "host=h dbname=x"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("URL %d: %s, want %s", i, got[i], want[i])
		}
	}
	// An explicit --db must match every URL's database, as in workload.
	if _, err := withDatabase([]string{"postgres://u@h/bench"}, "tpcc", true); err == nil {
		t.Error("URL database bench with --db tpcc accepted")
	}
}

func defaultWorkloadFlags() workloadRunFlags {
	return workloadRunFlags{db: "tpcc", seed: 1, fks: true, mix: tpcc.DefaultMix, method: "prepare",
		txnRetries: true, histogramsMaxLatency: 100 * time.Second, version: "auto"}
}

func TestWorkloadRunFlagsApply(t *testing.T) {
	f := defaultWorkloadFlags()
	var cfg tpcc.RunConfig
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Mix != nil || cfg.Retry.None || cfg.QueryExecMode != pgx.QueryExecModeCacheStatement ||
		cfg.DataSeed != 1 || !cfg.FKs || cfg.HistogramsMaxLatency != 100*time.Second || cfg.Version != (tpcc.Version{}) {
		t.Errorf("defaults: %+v", cfg)
	}
	f.mix, f.method, f.txnRetries, f.version, f.maxRate, f.maxOps = "newOrder=1", "simple", false, "v20.1.8", 50, 1000
	cfg = tpcc.RunConfig{}
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Mix == nil || cfg.Mix.String() != "newOrder=1" || !cfg.Retry.None || cfg.QueryExecMode != pgx.QueryExecModeSimpleProtocol ||
		cfg.Version != (tpcc.Version{Major: 20, Minor: 1}) || cfg.MaxRate != 50 || cfg.MaxOps != 1000 {
		t.Errorf("set: %+v", cfg)
	}
	for _, bad := range []func(*workloadRunFlags){
		func(f *workloadRunFlags) { f.mix = "newOrder=x" },
		func(f *workloadRunFlags) { f.mix = "newOrder=30,payment=1" }, // 31 cards
		func(f *workloadRunFlags) { f.method = "fast" },
		func(f *workloadRunFlags) { f.maxRate = -1 },
		func(f *workloadRunFlags) { f.histogramsMaxLatency = time.Millisecond },
		func(f *workloadRunFlags) { f.version = "twenty" },
	} {
		f := defaultWorkloadFlags()
		bad(&f)
		if err := f.apply(&tpcc.RunConfig{}); err == nil {
			t.Errorf("accepted %+v", f)
		}
	}
}

// TestTpccRunWorkloadFlagsCLI loads one warehouse into real PostgreSQL
// with `tpcc import --data-loader=COPY`, then runs `tpcc run` with
// workload's flags as a recipe user types them.
func TestTpccRunWorkloadFlagsCLI(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.CreateDatabase(t, "flags")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"benchrig", "tpcc", "import", "--data-loader", "COPY", "--warehouses", "1", url}, &out, &errOut); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code := run(ctx, []string{"benchrig", "tpcc", "run", "--warehouses", "1", "--wait=false", "--workers", "2",
		"--duration", "20s", "--display-every", "200ms", "--mix", "newOrder=1,payment=1", "--max-ops", "40",
		"--max-rate", "100", "--method", "noprepare", "--txn-retries=true", "--seed", "1", "--run-seed", "5",
		"--fks", "--split", "--histograms-max-latency", "100s", url}, &out, &errOut)
	if code != 0 && code != exitCheck {
		t.Fatalf("run exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	if !strings.Contains(out.String(), "newOrder") {
		t.Errorf("no newOrder in the output:\n%s", out.String())
	}
	// An explicit --db that the URL contradicts is workload's error.
	if code := run(ctx, []string{"benchrig", "tpcc", "run", "--db", "other", "--duration", "1s", url}, &out, &errOut); code != exitUsage {
		t.Errorf("--db other with URL database flags: exit %d", code)
	}
}
