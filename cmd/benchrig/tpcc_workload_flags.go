package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/tpcc"
)

// workloadRunFlags are CockroachDB `workload run tpcc` flags that the
// recipes type, with workload's names and defaults.
type workloadRunFlags struct {
	db                     string
	dbSet                  bool
	seed                   uint64
	fks, split, scatter    bool
	mix                    string
	maxRate                float64
	maxOps                 uint64
	method                 string
	txnRetries             bool
	histogramsMaxLatency   time.Duration
	replicateStaticColumns bool
	version                string
}

func (f *workloadRunFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "db", Value: "tpcc", Usage: "database, for URLs without one (given explicitly, every URL's must match)", Destination: &f.db},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the data generator's seed (workload's; C-Load when the database has no benchrig_meta)", Destination: &f.seed},
		&cli.BoolFlag{Name: "fks", Value: true, Usage: "the schema has workload's foreign keys (v20.1: and their indexes, which partitioning covers)", Destination: &f.fks},
		&cli.BoolFlag{Name: "split", Usage: "accepted for workload's command lines; splits happen at import (tpcc import --split)", Destination: &f.split},
		&cli.BoolFlag{Name: "scatter", Usage: "CockroachDB: ALTER TABLE ... SCATTER the nine tables before the run", Destination: &f.scatter},
		&cli.StringFlag{Name: "mix", Value: tpcc.DefaultMix, Usage: "transaction weights", Destination: &f.mix},
		&cli.Float64Flag{Name: "max-rate", Usage: "maximum transactions per second over this host (0: unlimited)", Destination: &f.maxRate},
		&cli.Uint64Flag{Name: "max-ops", Usage: "end the run after this many transactions (0: unlimited)", Destination: &f.maxOps},
		&cli.StringFlag{Name: "method", Value: "prepare", Usage: "SQL protocol: prepare, noprepare or simple", Destination: &f.method},
		&cli.BoolFlag{Name: "txn-retries", Value: true, Usage: "retry transactions on serialization failures (--max-retries times)", Destination: &f.txnRetries},
		&cli.DurationFlag{Name: "histograms-max-latency", Value: 100 * time.Second, Usage: "highest latency the histograms track (larger ones are clamped)", Destination: &f.histogramsMaxLatency},
		&cli.BoolFlag{Name: "replicate-static-columns", Usage: "CockroachDB, when the run partitions: also replicate warehouse and district static columns per partition", Destination: &f.replicateStaticColumns},
		&cli.StringFlag{Name: "cockroach-version", Value: "auto", Usage: "CockroachDB release whose workload behaviour to follow (auto: ask the server)", Destination: &f.version},
	}
}

// apply validates the flags and sets them on cfg.
func (f *workloadRunFlags) apply(cfg *tpcc.RunConfig) error {
	urls, err := withDatabase(cfg.URLs, f.db, f.dbSet)
	if err != nil {
		return withExit(exitUsage, err)
	}
	cfg.URLs = urls
	mix, err := tpcc.ParseMix(f.mix)
	if err != nil {
		return withExit(exitUsage, err)
	}
	if f.mix != tpcc.DefaultMix {
		if _, err := tpcc.NewDeckMix(mix); err != nil {
			return withExit(exitUsage, fmt.Errorf("--mix: %w", err))
		}
		cfg.Mix = &mix
	}
	if f.maxRate < 0 {
		return withExit(exitUsage, fmt.Errorf("--max-rate %v: must be >= 0", f.maxRate))
	}
	cfg.MaxRate, cfg.MaxOps = f.maxRate, f.maxOps
	if cfg.QueryExecMode, err = tpcc.ParseMethod(f.method); err != nil {
		return withExit(exitUsage, err)
	}
	if !f.txnRetries {
		cfg.Retry.None = true // first failure is final
	}
	if f.histogramsMaxLatency < time.Second || f.histogramsMaxLatency > time.Hour {
		return withExit(exitUsage, fmt.Errorf("--histograms-max-latency %s: want 1s..1h", f.histogramsMaxLatency))
	}
	cfg.HistogramsMaxLatency = f.histogramsMaxLatency
	cfg.Scatter, cfg.FKs, cfg.ReplicateStaticColumns, cfg.DataSeed = f.scatter, f.fks, f.replicateStaticColumns, f.seed
	if f.version != "" && f.version != "auto" {
		if cfg.Build, err = tpcc.ParseBuild(f.version); err != nil {
			return withExit(exitUsage, err)
		}
		cfg.Version = cfg.Build.Version
	}
	return nil
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
