package command

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/crdb/fixtures"
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

// defaultRunArgs are the flags' defaults, as the command line sets them.
func defaultRunArgs() RunArgs {
	return RunArgs{URLs: []string{"postgres://u@h/tpcc"}, Warehouses: 1, Partitions: 1, Strategy: "replication", Wait: "true",
		Duration: time.Minute, DisplayEvery: time.Second, DB: "tpcc", Seed: 1, FKs: true, Mix: tpcc.DefaultMix, Method: "prepare",
		TxnRetries: true, HistogramsMaxLatency: 100 * time.Second, CockroachVersion: "auto"}
}

func TestRunArgsConfig(t *testing.T) {
	f := defaultRunArgs()
	cfg, _, err := f.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mix != nil || cfg.Retry.None || cfg.QueryExecMode != pgx.QueryExecModeCacheStatement ||
		cfg.DataSeed != 1 || !cfg.Cockroach.(*fixtures.RunFixtures).FKs || cfg.HistogramsMaxLatency != 100*time.Second || cfg.Cockroach.(*fixtures.RunFixtures).Build.Given() {
		t.Errorf("defaults: %+v", cfg)
	}
	f.Mix, f.Method, f.TxnRetries, f.CockroachVersion, f.MaxRate, f.MaxOps = "newOrder=1", "simple", false, "v20.1.8", 50, 1000
	f.Affinity, f.PrometheusPort = "0, 2", 2112
	cfg, out, err := f.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Affinity) != 2 || cfg.Affinity[1] != 2 || out.Prometheus != ":2112" {
		t.Errorf("affinity %v, prometheus %q", cfg.Affinity, out.Prometheus)
	}
	if cfg.Mix == nil || cfg.Mix.String() != "newOrder=1" || !cfg.Retry.None || cfg.QueryExecMode != pgx.QueryExecModeSimpleProtocol ||
		cfg.Cockroach.(*fixtures.RunFixtures).Build.Version != (crdb.Version{Major: 20, Minor: 1}) || cfg.MaxRate != 50 || cfg.MaxOps != 1000 {
		t.Errorf("set: %+v", cfg)
	}
	for _, bad := range []func(*RunArgs){
		func(f *RunArgs) { f.Mix = "newOrder=x" },
		func(f *RunArgs) { f.Mix = "newOrder=30,payment=1" }, // 31 cards
		func(f *RunArgs) { f.Method = "fast" },
		func(f *RunArgs) { f.MaxRate = -1 },
		func(f *RunArgs) { f.HistogramsMaxLatency = time.Millisecond },
		func(f *RunArgs) { f.CockroachVersion = "twenty" },
		func(f *RunArgs) { f.URLs = nil },
		func(f *RunArgs) { f.Affinity = "0,x" },
		func(f *RunArgs) { f.Wait = "sometimes" },
		func(f *RunArgs) { f.Isolation = "snapshot" },
		func(f *RunArgs) { f.StartAt = "noon" },
		func(f *RunArgs) { f.PrometheusPort = 70000 },
		func(f *RunArgs) { f.Outputs.Ticks = "ticks.txt" },
		func(f *RunArgs) { f.DB, f.DBSet, f.URLs = "tpcc", true, []string{"postgres://u@h/other"} },
	} {
		f := defaultRunArgs()
		bad(&f)
		if _, _, err := f.Config(nil); !errors.As(err, new(*UsageError)) {
			t.Errorf("%+v: %v, want a *UsageError", f, err)
		}
	}
}

// TestRunArgsProcs: --procs 0 (the default) follows the driver's CPU use
// unless the user fixed GOMAXPROCS in the environment; N fixes it; a
// negative or absurd N is a usage error before anything connects.
func TestRunArgsProcs(t *testing.T) {
	for _, c := range []struct {
		procs int
		env   string
		want  int
		usage bool
	}{
		{0, "", tpcc.ProcsFollowDemand, false},
		{0, "3", 0, false},
		{2, "", 2, false},
		{2, "3", 2, false},
		{-1, "", 0, true},
		{tpcc.MaxProcs + 1, "", 0, true},
	} {
		t.Setenv("GOMAXPROCS", c.env)
		f := defaultRunArgs()
		f.Procs = c.procs
		cfg, _, err := f.Config(nil)
		var ue *UsageError
		if c.usage {
			if !errors.As(err, &ue) {
				t.Errorf("--procs %d: err %v, want a usage error", c.procs, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("--procs %d: %v", c.procs, err)
		}
		if cfg.Procs != c.want {
			t.Errorf("--procs %d, GOMAXPROCS=%q: RunConfig.Procs %d, want %d", c.procs, c.env, cfg.Procs, c.want)
		}
	}
}
