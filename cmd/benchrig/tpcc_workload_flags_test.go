package main

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
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
	if cfg.Mix != nil || cfg.MaxRetries != 0 || cfg.QueryExecMode != pgx.QueryExecModeCacheStatement ||
		cfg.DataSeed != 1 || !cfg.FKs || cfg.HistogramsMaxLatency != 100*time.Second || cfg.Version != (tpcc.Version{}) {
		t.Errorf("defaults: %+v", cfg)
	}
	f.mix, f.method, f.txnRetries, f.version, f.maxRate, f.maxOps = "newOrder=1", "simple", false, "v20.1.8", 50, 1000
	cfg = tpcc.RunConfig{}
	if err := f.apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Mix == nil || cfg.Mix.String() != "newOrder=1" || cfg.MaxRetries != -1 || cfg.QueryExecMode != pgx.QueryExecModeSimpleProtocol ||
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
