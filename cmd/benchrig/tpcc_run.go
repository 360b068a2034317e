package main

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/tpcc"
)

// tpccRunCommands: benchrig tpcc run | merge | import (tpcc_import.go). Flag names are CockroachDB
// `workload run tpcc`'s and `workload debug tpcc-merge-results`'s.
func tpccRunCommands() []*cli.Command {
	return []*cli.Command{tpccRunCommand(), tpccMergeCommand(), tpccImportCommand()}
}

func tpccRunCommand() *cli.Command {
	var o tpcc.RunArgs
	return &cli.Command{
		Name:      "run",
		Usage:     "run the TPC-C workload against a loaded database",
		ArgsUsage: "URL [URL...]",
		Description: `Emulates 10 terminals per active warehouse with the spec's keying and think
times (--wait), or --workers terminals without waits (--wait=false). Prints
progress every --display-every, then per-transaction totals, the audit
checks of clause 9.2 and the tpmC line. Several URLs are spread across
terminals; with several --partition-affinity values, URL j serves partition
j % --partitions up to CockroachDB v24.x and affinity[j] from v25.1, as
workload does for the release (--cockroach-version, asked from the server
by default).

On CockroachDB, --partitions > 1 first partitions the tables unless they
already are, with workload's statements for the release (PARTITION BY
RANGE, zone configurations per rack or --zones, item replicas per rack),
as the recipes' short partitioning run expects; --scatter then scatters.

workload run tpcc's flags mean what they mean there: --seed is the data
generator's seed (the run's own random streams are --run-seed), --db,
--fks, --mix, --max-rate, --max-ops, --method, --txn-retries,
--histograms-max-latency, --replicate-static-columns, --partition-strategy,
--zones. --split is accepted and, as in workload run, does nothing (splits
happen at import).

Exits 30 when an audit check fails over enough transactions to be
significant, or when a spec-paced run's efficiency is below 85%.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Value: 1, Usage: "number of warehouses loaded", Destination: &o.Warehouses},
			&cli.IntFlag{Name: "active-warehouses", Usage: "warehouses with terminals (default: --warehouses)", Destination: &o.ActiveWarehouses},
			&cli.IntFlag{Name: "partitions", Value: 1, Usage: "partitions the warehouses are split into", Destination: &o.Partitions},
			&cli.StringFlag{Name: "partition-affinity", Usage: "comma-separated partitions this host drives (default: all)", Destination: &o.Affinity},
			&cli.StringFlag{Name: "partition-strategy", Value: "replication", Usage: "CockroachDB, when the run partitions the tables: replication or leases", Destination: &o.Strategy},
			&cli.StringFlag{Name: "zones", Usage: "CockroachDB, when the run partitions the tables: comma-separated zones, one per partition", Destination: &o.Zones},
			&cli.DurationFlag{Name: "ramp", Usage: "ramp-up period, excluded from the measurement", Destination: &o.Ramp},
			&cli.DurationFlag{Name: "duration", Value: 5 * time.Minute, Usage: "measurement interval after the ramp", Destination: &o.Duration},
			&cli.StringFlag{Name: "wait", Value: "true", Usage: "keying and think times: true (spec), false (no wait), or a factor such as 0.01", Destination: &o.Wait},
			&cli.IntFlag{Name: "workers", Usage: "terminals in no-wait mode (default: 10 per active warehouse)", Destination: &o.Workers},
			&cli.IntFlag{Name: "conns", Usage: "connections over all URLs (default: one per 40 terminals, i.e. per 4 active warehouses, in wait mode; --workers with --wait=false)", Destination: &o.Conns},
			&cli.StringFlag{Name: "histograms", Usage: "write per-tick HdrHistograms as ndjson to `FILE` (CockroachDB's format)", Destination: &o.Outputs.Histograms},
			&cli.IntFlag{Name: "prometheus-port", Usage: "serve live per-transaction counters and latency histograms for Prometheus at http://HOST:`PORT`/metrics (OpenMetrics text) while the run goes; 0: off", Destination: &o.PrometheusPort},
			&cli.StringFlag{Name: "ticks", Usage: "write the periodic lines' figures every --display-every to `FILE` (benchrig.ticks/v1): JSON lines if it ends in .jsonl or .ndjson, CSV if .csv", Destination: &o.Outputs.Ticks},
			&cli.StringFlag{Name: "result", Usage: "write the result as JSON (benchrig.result/v1) to `FILE` (default: next to --histograms, workload1.histogram.ndjson -> workload1.result.json)", Destination: &o.Outputs.Result},
			&cli.BoolFlag{Name: "tolerate-errors", Usage: "count transaction errors instead of stopping at the first", Destination: &o.TolerateErrors},
			&cli.BoolFlag{Name: "no-verdict", Usage: "report the audit checks but judge nothing (exit 0 whatever they say; the result says judged: false), as workload treats the recipes' 1-minute partitioning run", Destination: &o.NoVerdict},
			&cli.StringFlag{Name: "start-at", Usage: "RFC3339 `TIME` to start at, so that several hosts start together", Destination: &o.StartAt},
			&cli.DurationFlag{Name: "display-every", Value: time.Second, Usage: "progress and histogram tick period", Destination: &o.DisplayEvery},
			&cli.Uint64Flag{Name: "run-seed", Usage: "seed of the run's random streams (default: from the clock; --seed is workload's data seed)", Destination: &o.RunSeed},
			&cli.IntFlag{Name: "max-retries", Value: tpcc.DefaultRetries, Usage: "retries per transaction of serialization failures and deadlocks (40001/40P01), with capped exponential backoff and full jitter (0: the default)", Destination: &o.Retry.Retries},
			&cli.DurationFlag{Name: "retry-budget", Value: tpcc.DefaultRetryBudget, Usage: "a transaction gives up when its retries have taken this long, even below --max-retries", Destination: &o.Retry.Budget},
			&cli.DurationFlag{Name: "retry-backoff", Value: tpcc.DefaultBaseBackoff, Usage: "upper bound of the first retry's random backoff; it doubles per retry (full jitter)", Destination: &o.Retry.BaseBackoff},
			&cli.DurationFlag{Name: "retry-max-backoff", Value: tpcc.DefaultMaxBackoff, Usage: "cap on a retry's backoff", Destination: &o.Retry.MaxBackoff},
			&cli.StringFlag{Name: "isolation", Usage: "read-committed, repeatable-read or serializable (default: repeatable-read on PostgreSQL, serializable on CockroachDB)", Destination: &o.Isolation},
			&cli.StringFlag{Name: "profile", Usage: "load profile: workload (CockroachDB workload v20.1's statements and round trips, SAVEPOINT cockroach_restart retries, 2 connections per active warehouse of the run, linear --ramp) or pipelined (benchrig's batched transactions) (default: workload on CockroachDB, pipelined on PostgreSQL)", Destination: &o.Profile},
			&cli.IntFlag{Name: "savepoint-retry-limit", Usage: "workload profile: give a transaction up after this many savepoint retries (0: never, as workload)", Destination: &o.SavepointRetryLimit},

			&cli.StringFlag{Name: "db", Value: "tpcc", Usage: "database, for URLs without one (given explicitly, every URL's must match)", Destination: &o.DB},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the data generator's seed (workload's; C-Load when the database has no benchrig_meta)", Destination: &o.Seed},
			&cli.BoolFlag{Name: "fks", Value: true, Usage: "the schema has workload's foreign keys (v20.1: and their indexes, which partitioning covers)", Destination: &o.FKs},
			&cli.BoolFlag{Name: "split", Usage: "accepted for workload's command lines; splits happen at import (tpcc import --split)", Destination: &o.Split},
			&cli.BoolFlag{Name: "scatter", Usage: "CockroachDB: ALTER TABLE ... SCATTER the nine tables before the run", Destination: &o.Scatter},
			&cli.StringFlag{Name: "mix", Value: tpcc.DefaultMix, Usage: "transaction weights", Destination: &o.Mix},
			&cli.Float64Flag{Name: "max-rate", Usage: "maximum transactions per second over this host (0: unlimited)", Destination: &o.MaxRate},
			&cli.Uint64Flag{Name: "max-ops", Usage: "end the run after this many transactions (0: unlimited)", Destination: &o.MaxOps},
			&cli.StringFlag{Name: "method", Value: "prepare", Usage: "SQL protocol: prepare, noprepare or simple", Destination: &o.Method},
			&cli.BoolFlag{Name: "txn-retries", Value: true, Usage: "retry transactions on serialization failures (--max-retries times)", Destination: &o.TxnRetries},
			&cli.DurationFlag{Name: "histograms-max-latency", Value: 100 * time.Second, Usage: "highest latency the histograms track (larger ones are clamped)", Destination: &o.HistogramsMaxLatency},
			&cli.BoolFlag{Name: "replicate-static-columns", Usage: "CockroachDB, when the run partitions: also replicate warehouse and district static columns per partition", Destination: &o.ReplicateStaticColumns},
			&cli.StringFlag{Name: "cockroach-version", Value: "auto", Usage: "CockroachDB release whose workload behaviour to follow (auto: ask the server)", Destination: &o.CockroachVersion},
		},
		Action: func(c *cli.Context) error {
			o.URLs, o.DBSet = c.Args().Slice(), c.IsSet("db")
			cfg, out, err := o.Config(c.App.Writer)
			if err != nil {
				return err
			}
			return tpcc.RunTo(c.Context, cfg, out, c.App.ErrWriter)
		},
	}
}

func tpccMergeCommand() *cli.Command {
	var warehouses int
	var check bool
	var jsonPath string
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge --histograms files of several workload hosts (like tpcc-merge-results)",
		ArgsUsage: "FILE [FILE...]",
		Description: `Reads ndjson histogram files written by benchrig tpcc run or CockroachDB's
workload run --histograms and prints the summary line and per-operation
table of workload debug tpcc-merge-results. Efficiency uses 12.605 tpmC per
warehouse; --warehouses is the total over all hosts.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Required: true, Usage: "aggregate active warehouses of all hosts", Destination: &warehouses},
			&cli.BoolFlag{Name: "check", Usage: "exit 30 unless efficiency >= 85% and every p90 is within its limit", Destination: &check},
			&cli.StringFlag{Name: "json", Usage: "also write the merged result as JSON (benchrig.result/v1, kind tpcc.merge) to `FILE`", Destination: &jsonPath},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return withExit(exitUsage, errors.New("tpcc merge: no histogram file given"))
			}
			m, err := tpcc.MergeTo(c.App.Writer, warehouses, jsonPath, c.Args().Slice()...)
			if err != nil || !check {
				return err
			}
			return m.Check() // a *histogram.CheckError: exit 30
		},
	}
}
