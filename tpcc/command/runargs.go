package command

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/crdb/fixtures"
	"github.com/benchrig/benchrig/tpcc"
	loadprofile "github.com/benchrig/benchrig/tpcc/profile"
)

// RunArgs are `benchrig tpcc run`'s flags as given, written straight in
// (each field's flag tag declares its flag; internal/cliargs binds them):
// benchrig's own and CockroachDB `workload run tpcc`'s, with workload's
// names and, from DefaultRunArgs, its defaults. Config checks them and
// turns them into a RunConfig and the run's output files.
type RunArgs struct {
	URLs             []string
	Warehouses       int    `flag:"warehouses" usage:"number of warehouses loaded"`
	ActiveWarehouses int    `flag:"active-warehouses" usage:"warehouses with terminals (default: --warehouses)"`
	Partitions       int    `flag:"partitions" usage:"partitions the warehouses are split into"`
	Affinity         string `flag:"partition-affinity" usage:"comma-separated partitions this host drives (default: all)"`
	Strategy         string `flag:"partition-strategy" usage:"CockroachDB, when the run partitions the tables: replication or leases"`
	Zones            string `flag:"zones" usage:"CockroachDB, when the run partitions the tables: comma-separated zones, one per partition"`

	Ramp     time.Duration `flag:"ramp" usage:"ramp-up period, excluded from the measurement"`
	Duration time.Duration `flag:"duration" usage:"measurement interval after the ramp"`
	Wait     string        `flag:"wait" usage:"keying and think times: true (spec), false (no wait), or a factor such as 0.01"`
	Workers  int           `flag:"workers" usage:"terminals in no-wait mode (default: 10 per active warehouse)"`
	Conns    int           `flag:"conns" usage:"connections over all URLs (default: one per 40 terminals, i.e. per 4 active warehouses, in wait mode; --workers with --wait=false)"`
	Procs    int           `flag:"procs" usage:"the driver's Go Ps (GOMAXPROCS): 0 follows its CPU use, from one P up to the cores (unless GOMAXPROCS is set); N fixes it"`

	Outputs        RunOutputs
	PrometheusPort int           `flag:"prometheus-port" usage:"serve live per-transaction counters and latency histograms for Prometheus at http://HOST:PORT/metrics (OpenMetrics text) while the run goes; 0: off" arg:"PORT"`
	TolerateErrors bool          `flag:"tolerate-errors" usage:"count transaction errors instead of stopping at the first"`
	NoVerdict      bool          `flag:"no-verdict" usage:"report the audit checks but judge nothing (exit 0 whatever they say; the result says judged: false), as workload treats the recipes' 1-minute partitioning run"`
	StartAt        string        `flag:"start-at" usage:"RFC3339 TIME to start at, so that several hosts start together" arg:"TIME"`
	ReadyFile      string        `flag:"ready-file" usage:"start barrier: once connected and warmed, write the instant to FILE, then wait for --start-file" arg:"FILE"`
	StartFile      string        `flag:"start-file" usage:"start barrier: wait (up to 6h) until FILE holds the RFC3339 instant to start at, written once every host is ready" arg:"FILE"`
	DisplayEvery   time.Duration `flag:"display-every" usage:"progress and histogram tick period"`
	RunSeed        uint64        `flag:"run-seed" usage:"seed of the run's random streams (default: from the clock; --seed is workload's data seed)"`

	Retry               tpcc.RetryPolicy
	Isolation           string `flag:"isolation" usage:"read-committed, repeatable-read or serializable (default: repeatable-read on PostgreSQL, serializable on CockroachDB)"`
	Profile             string `flag:"profile" usage:"load profile: workload (CockroachDB workload v20.1's statements and round trips, SAVEPOINT cockroach_restart retries, 2 connections per active warehouse of the run, linear --ramp), pipelined (benchrig's batched transactions) or functions (each transaction one call of a PL/pgSQL function that tpcc init installs; PostgreSQL only) (default: workload on CockroachDB, pipelined on PostgreSQL)"`
	SavepointRetryLimit int    `flag:"savepoint-retry-limit" usage:"workload profile: give a transaction up after this many savepoint retries (0: never, as workload)"`

	// workload run tpcc's flags that the recipes type.
	DB                     string        `flag:"db" usage:"database, for URLs without one (given explicitly, every URL's must match)"`
	DBSet                  bool          `isset:"db"`
	Seed                   uint64        `flag:"seed" usage:"the data generator's seed (workload's; C-Load when the database has no benchrig_meta)"`
	Imported               bool          `flag:"imported" usage:"the data was IMPORTed from workload:// sources, whose nodes generate C_LAST with C = 0 (without benchrig_meta the C-Load is otherwise the seed's)"`
	FKs                    bool          `flag:"fks" usage:"the schema has workload's foreign keys (v20.1: and their indexes, which partitioning covers)"`
	Split                  bool          `flag:"split" usage:"accepted for workload's command lines; splits happen at import (tpcc import --split)"`
	Scatter                bool          `flag:"scatter" usage:"CockroachDB: ALTER TABLE ... SCATTER the nine tables before the run"`
	Mix                    string        `flag:"mix" usage:"transaction weights"`
	MaxRate                float64       `flag:"max-rate" usage:"maximum transactions per second over this host (0: unlimited)"`
	MaxOps                 uint64        `flag:"max-ops" usage:"end the run after this many transactions (0: unlimited)"`
	Method                 string        `flag:"method" usage:"SQL protocol: prepare, noprepare or simple"`
	TxnRetries             bool          `flag:"txn-retries" usage:"retry transactions on serialization failures (--max-retries times)"`
	HistogramsMaxLatency   time.Duration `flag:"histograms-max-latency" usage:"highest latency the histograms track (larger ones are clamped)"`
	ReplicateStaticColumns bool          `flag:"replicate-static-columns" usage:"CockroachDB, when the run partitions: also replicate warehouse and district static columns per partition"`
	CockroachVersion       string        `flag:"cockroach-version" usage:"CockroachDB release whose workload behaviour to follow (auto: ask the server)"`
}

// DefaultRunArgs are tpcc run's defaults: workload run tpcc's where it
// has the flag.
func DefaultRunArgs() RunArgs {
	return RunArgs{
		Warehouses: 1, Partitions: 1, Strategy: "replication",
		Duration: 5 * time.Minute, Wait: "true", DisplayEvery: time.Second,
		Retry: tpcc.RetryPolicy{Retries: tpcc.DefaultRetries, Budget: tpcc.DefaultRetryBudget, BaseBackoff: tpcc.DefaultBaseBackoff, MaxBackoff: tpcc.DefaultMaxBackoff},
		DB:    "tpcc", Seed: 1, FKs: true, Mix: tpcc.DefaultMix, Method: "prepare", TxnRetries: true,
		HistogramsMaxLatency: 100 * time.Second, CockroachVersion: "auto",
	}
}

// Config is the run the flags describe; out gets the progress and the
// final report. Every problem with the flags is a *UsageError, found
// before anything connects.
func (a RunArgs) Config(out io.Writer) (tpcc.RunConfig, RunOutputs, error) {
	bad := func(err error) (tpcc.RunConfig, RunOutputs, error) {
		return tpcc.RunConfig{}, RunOutputs{}, &UsageError{err}
	}
	if len(a.URLs) == 0 {
		return bad(errors.New("tpcc run: no connection URL given"))
	}
	aff, err := parseIntList(a.Affinity)
	if err != nil {
		return bad(fmt.Errorf("--partition-affinity: %w", err))
	}
	wait, err := tpcc.ParseWait(a.Wait)
	if err != nil {
		return bad(err)
	}
	iso, err := ParseIsolation(a.Isolation)
	if err != nil {
		return bad(err)
	}
	profile, err := tpcc.ParseProfile(a.Profile)
	if err != nil {
		return bad(fmt.Errorf("--profile: %w", err))
	}
	strategy, err := crdb.ParsePartitionStrategy(a.Strategy)
	if err != nil {
		return bad(fmt.Errorf("--partition-strategy: %w", err))
	}
	var zones []string
	if a.Zones != "" {
		zones = strings.Split(a.Zones, ",")
	}
	fx := &fixtures.RunFixtures{PartitionStrategy: strategy, Zones: zones, FKs: a.FKs, ReplicateStaticColumns: a.ReplicateStaticColumns}
	cfg := tpcc.RunConfig{
		Cockroach:  fx,
		Warehouses: a.Warehouses, ActiveWarehouses: a.ActiveWarehouses,
		Partitions: a.Partitions, Affinity: aff, Ramp: a.Ramp, Duration: a.Duration,
		Wait: wait, Workers: a.Workers, Conns: a.Conns, DisplayEvery: a.DisplayEvery,
		TolerateErrors: a.TolerateErrors, NoVerdict: a.NoVerdict, Seed: a.RunSeed, Isolation: iso, Retry: a.Retry,
		Out: out, Profile: profile, SavepointRetryLimit: a.SavepointRetryLimit, ChooseProfile: loadprofile.Choose,
		Procs: a.Procs,
	}
	if a.Procs < 0 || a.Procs > tpcc.MaxProcs {
		return bad(fmt.Errorf("--procs %d: must be 0 (follow the CPU use) or 1..%d", a.Procs, tpcc.MaxProcs))
	}
	if a.Procs == 0 && os.Getenv("GOMAXPROCS") == "" {
		cfg.Procs = tpcc.ProcsFollowDemand
	}
	if cfg.URLs, err = withDatabase(a.URLs, a.DB, a.DBSet); err != nil {
		return bad(err)
	}
	mix, err := tpcc.ParseMix(a.Mix)
	if err != nil {
		return bad(err)
	}
	if a.Mix != tpcc.DefaultMix {
		if _, err := tpcc.NewDeckMix(mix); err != nil {
			return bad(fmt.Errorf("--mix: %w", err))
		}
		cfg.Mix = &mix
	}
	if a.MaxRate < 0 {
		return bad(fmt.Errorf("--max-rate %v: must be >= 0", a.MaxRate))
	}
	cfg.MaxRate, cfg.MaxOps = a.MaxRate, a.MaxOps
	if cfg.QueryExecMode, err = tpcc.ParseMethod(a.Method); err != nil {
		return bad(err)
	}
	if !a.TxnRetries {
		cfg.Retry.None = true // first failure is final
	}
	if a.HistogramsMaxLatency < time.Second || a.HistogramsMaxLatency > time.Hour {
		return bad(fmt.Errorf("--histograms-max-latency %s: want 1s..1h", a.HistogramsMaxLatency))
	}
	cfg.HistogramsMaxLatency = a.HistogramsMaxLatency
	cfg.Scatter, cfg.DataSeed, cfg.Imported = a.Scatter, a.Seed, a.Imported
	if a.CockroachVersion != "" && a.CockroachVersion != "auto" {
		if fx.Build, err = crdb.ParseBuild(a.CockroachVersion); err != nil {
			return bad(err)
		}
		cfg.URLPerAffinity = fx.Build.Release().URLPerAffinity
	}
	// Without a version, the baseline's (v20.1's) behaviour.
	rel := fx.Build.Release()
	cfg.EmptyDistrictDeliveryFails, cfg.PingIdleConns = rel.DeliveryEmptyDistrictFails, rel.WorkloadPoolPingsIdle
	if a.StartAt != "" {
		if cfg.StartAt, err = time.Parse(time.RFC3339Nano, a.StartAt); err != nil {
			return bad(fmt.Errorf("--start-at: %w", err))
		}
	}
	switch {
	case (a.ReadyFile == "") != (a.StartFile == ""):
		return bad(errors.New("--ready-file and --start-file go together (the start barrier)"))
	case a.StartFile != "" && a.StartAt != "":
		return bad(errors.New("--start-at and the start barrier (--start-file) exclude each other"))
	}
	cfg.ReadyFile, cfg.StartFile = a.ReadyFile, a.StartFile
	o := a.Outputs
	if a.PrometheusPort < 0 || a.PrometheusPort > 65535 {
		return bad(fmt.Errorf("--prometheus-port %d: want 1-65535, or 0 for none", a.PrometheusPort))
	}
	if a.PrometheusPort > 0 {
		o.Prometheus = net.JoinHostPort("", strconv.Itoa(a.PrometheusPort))
	}
	if err := o.Validate(); err != nil {
		return bad(err)
	}
	return cfg, o, nil
}

// parseIntList parses "0,5,10" (also accepting spaces); "" is nil.
func parseIntList(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// withDatabase gives URLs without a database the --db one; with --db
// given explicitly, a URL naming another database is an error, as in
// workload ("specifies database X, but database Y is expected").
func withDatabase(urls []string, db string, explicit bool) ([]string, error) {
	out := make([]string, len(urls))
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			// Keyword/value DSNs are passed through untouched.
			out[i] = raw
			continue
		}
		have := strings.TrimPrefix(u.Path, "/")
		switch {
		case have == "":
			u.Path = "/" + db
		case explicit && have != db:
			return nil, fmt.Errorf("URL %d specifies database %q, but --db is %q", i+1, have, db)
		}
		out[i] = u.String()
	}
	return out, nil
}
