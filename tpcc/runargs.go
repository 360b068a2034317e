package tpcc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RunArgs are `benchrig tpcc run`'s flags as given, written straight in:
// benchrig's own and CockroachDB `workload run tpcc`'s, with workload's
// names and defaults. Config checks and turns them into a RunConfig and
// the run's output files.
type RunArgs struct {
	URLs                         []string
	Warehouses, ActiveWarehouses int
	Partitions                   int
	Affinity                     string // comma-separated partitions this host drives
	Strategy, Zones              string
	Ramp, Duration               time.Duration
	Wait                         string // true, false or a factor
	Workers, Conns               int
	Outputs                      RunOutputs
	PrometheusPort               int
	TolerateErrors               bool
	NoVerdict                    bool   // report the audit, judge nothing
	StartAt                      string // RFC 3339
	DisplayEvery                 time.Duration
	RunSeed                      uint64
	Retry                        RetryPolicy
	Isolation                    string
	Profile                      string // workload or pipelined; "": by dialect
	SavepointRetryLimit          int    // workload profile: 0 never gives up

	// workload run tpcc's flags that the recipes type.
	DB                     string
	DBSet                  bool // --db given explicitly: every URL's must match
	Seed                   uint64
	FKs, Split, Scatter    bool
	Mix                    string
	MaxRate                float64
	MaxOps                 uint64
	Method                 string
	TxnRetries             bool
	HistogramsMaxLatency   time.Duration
	ReplicateStaticColumns bool
	CockroachVersion       string // "auto": ask the server
}

// Config is the run the flags describe; out gets the progress and the
// final report. Every problem with the flags is a *UsageError, found
// before anything connects.
func (a RunArgs) Config(out io.Writer) (RunConfig, RunOutputs, error) {
	bad := func(err error) (RunConfig, RunOutputs, error) { return RunConfig{}, RunOutputs{}, &UsageError{err} }
	if len(a.URLs) == 0 {
		return bad(errors.New("tpcc run: no connection URL given"))
	}
	aff, err := parseIntList(a.Affinity)
	if err != nil {
		return bad(fmt.Errorf("--partition-affinity: %w", err))
	}
	wait, err := ParseWait(a.Wait)
	if err != nil {
		return bad(err)
	}
	iso, err := ParseIsolation(a.Isolation)
	if err != nil {
		return bad(err)
	}
	profile, err := ParseProfile(a.Profile)
	if err != nil {
		return bad(fmt.Errorf("--profile: %w", err))
	}
	strategy, err := ParsePartitionStrategy(a.Strategy)
	if err != nil {
		return bad(fmt.Errorf("--partition-strategy: %w", err))
	}
	var zones []string
	if a.Zones != "" {
		zones = strings.Split(a.Zones, ",")
	}
	cfg := RunConfig{
		PartitionStrategy: strategy, Zones: zones,
		Warehouses: a.Warehouses, ActiveWarehouses: a.ActiveWarehouses,
		Partitions: a.Partitions, Affinity: aff, Ramp: a.Ramp, Duration: a.Duration,
		Wait: wait, Workers: a.Workers, Conns: a.Conns, DisplayEvery: a.DisplayEvery,
		TolerateErrors: a.TolerateErrors, NoVerdict: a.NoVerdict, Seed: a.RunSeed, Isolation: iso, Retry: a.Retry,
		Out: out, Profile: profile, SavepointRetryLimit: a.SavepointRetryLimit,
	}
	if cfg.URLs, err = withDatabase(a.URLs, a.DB, a.DBSet); err != nil {
		return bad(err)
	}
	mix, err := ParseMix(a.Mix)
	if err != nil {
		return bad(err)
	}
	if a.Mix != DefaultMix {
		if _, err := NewDeckMix(mix); err != nil {
			return bad(fmt.Errorf("--mix: %w", err))
		}
		cfg.Mix = &mix
	}
	if a.MaxRate < 0 {
		return bad(fmt.Errorf("--max-rate %v: must be >= 0", a.MaxRate))
	}
	cfg.MaxRate, cfg.MaxOps = a.MaxRate, a.MaxOps
	if cfg.QueryExecMode, err = ParseMethod(a.Method); err != nil {
		return bad(err)
	}
	if !a.TxnRetries {
		cfg.Retry.None = true // first failure is final
	}
	if a.HistogramsMaxLatency < time.Second || a.HistogramsMaxLatency > time.Hour {
		return bad(fmt.Errorf("--histograms-max-latency %s: want 1s..1h", a.HistogramsMaxLatency))
	}
	cfg.HistogramsMaxLatency = a.HistogramsMaxLatency
	cfg.Scatter, cfg.FKs, cfg.ReplicateStaticColumns, cfg.DataSeed = a.Scatter, a.FKs, a.ReplicateStaticColumns, a.Seed
	if a.CockroachVersion != "" && a.CockroachVersion != "auto" {
		if cfg.Build, err = ParseBuild(a.CockroachVersion); err != nil {
			return bad(err)
		}
		cfg.Version = cfg.Build.Version
	}
	if a.StartAt != "" {
		if cfg.StartAt, err = time.Parse(time.RFC3339Nano, a.StartAt); err != nil {
			return bad(fmt.Errorf("--start-at: %w", err))
		}
	}
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
