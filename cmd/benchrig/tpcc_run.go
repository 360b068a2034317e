package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/tpcc"
)

// tpccRunCommands: benchrig tpcc run | merge | import (tpcc_import.go). Flag names are CockroachDB
// `workload run tpcc`'s and `workload debug tpcc-merge-results`'s.
func tpccRunCommands() []*cli.Command {
	return []*cli.Command{tpccRunCommand(), tpccMergeCommand(), tpccImportCommand()}
}

// tpccRunOptions are the flags of `benchrig tpcc run`.
type tpccRunOptions struct {
	urls             []string
	warehouses       int
	activeWarehouses int
	partitions       int
	affinity         []int
	strategy, zones  string
	ramp, duration   time.Duration
	wait             string
	workers, conns   int
	histograms       string
	ticks            string
	prometheusPort   int
	result           string
	tolerateErrors   bool
	startAt          string
	displayEvery     time.Duration
	runSeed          uint64
	maxRetries       int
	retryBudget      time.Duration
	retryBackoff     time.Duration
	retryMaxBackoff  time.Duration
	isolation        string
	workload         workloadRunFlags
}

func tpccRunCommand() *cli.Command {
	var o tpccRunOptions
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
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "warehouses", Value: 1, Usage: "number of warehouses loaded", Destination: &o.warehouses},
			&cli.IntFlag{Name: "active-warehouses", Usage: "warehouses with terminals (default: --warehouses)", Destination: &o.activeWarehouses},
			&cli.IntFlag{Name: "partitions", Value: 1, Usage: "partitions the warehouses are split into", Destination: &o.partitions},
			&cli.StringFlag{Name: "partition-affinity", Usage: "comma-separated partitions this host drives (default: all)"},
			&cli.StringFlag{Name: "partition-strategy", Value: "replication", Usage: "CockroachDB, when the run partitions the tables: replication or leases", Destination: &o.strategy},
			&cli.StringFlag{Name: "zones", Usage: "CockroachDB, when the run partitions the tables: comma-separated zones, one per partition", Destination: &o.zones},
			&cli.DurationFlag{Name: "ramp", Usage: "ramp-up period, excluded from the measurement", Destination: &o.ramp},
			&cli.DurationFlag{Name: "duration", Value: 5 * time.Minute, Usage: "measurement interval after the ramp", Destination: &o.duration},
			&cli.StringFlag{Name: "wait", Value: "true", Usage: "keying and think times: true (spec), false (no wait), or a factor such as 0.01", Destination: &o.wait},
			&cli.IntFlag{Name: "workers", Usage: "terminals in no-wait mode (default: 10 per active warehouse)", Destination: &o.workers},
			&cli.IntFlag{Name: "conns", Usage: "connections over all URLs (default: one per 40 terminals, i.e. per 4 active warehouses, in wait mode; --workers with --wait=false)", Destination: &o.conns},
			&cli.StringFlag{Name: "histograms", Usage: "write per-tick HdrHistograms as ndjson to `FILE` (CockroachDB's format)", Destination: &o.histograms},
			&cli.IntFlag{Name: "prometheus-port", Usage: "serve live per-transaction counters and latency histograms for Prometheus at http://HOST:`PORT`/metrics (OpenMetrics text) while the run goes; 0: off", Destination: &o.prometheusPort},
			&cli.StringFlag{Name: "ticks", Usage: "write the periodic lines' figures every --display-every to `FILE` (benchrig.ticks/v1): JSON lines if it ends in .jsonl or .ndjson, CSV if .csv", Destination: &o.ticks},
			&cli.StringFlag{Name: "result", Usage: "write the result as JSON (benchrig.result/v1) to `FILE` (default: next to --histograms, workload1.histogram.ndjson -> workload1.result.json)", Destination: &o.result},
			&cli.BoolFlag{Name: "tolerate-errors", Usage: "count transaction errors instead of stopping at the first", Destination: &o.tolerateErrors},
			&cli.StringFlag{Name: "start-at", Usage: "RFC3339 `TIME` to start at, so that several hosts start together", Destination: &o.startAt},
			&cli.DurationFlag{Name: "display-every", Value: time.Second, Usage: "progress and histogram tick period", Destination: &o.displayEvery},
			&cli.Uint64Flag{Name: "run-seed", Usage: "seed of the run's random streams (default: from the clock; --seed is workload's data seed)", Destination: &o.runSeed},
			&cli.IntFlag{Name: "max-retries", Value: tpcc.DefaultRetries, Usage: "retries per transaction of serialization failures and deadlocks (40001/40P01), with capped exponential backoff and full jitter (0: the default)", Destination: &o.maxRetries},
			&cli.DurationFlag{Name: "retry-budget", Value: tpcc.DefaultRetryBudget, Usage: "a transaction gives up when its retries have taken this long, even below --max-retries", Destination: &o.retryBudget},
			&cli.DurationFlag{Name: "retry-backoff", Value: tpcc.DefaultBaseBackoff, Usage: "upper bound of the first retry's random backoff; it doubles per retry (full jitter)", Destination: &o.retryBackoff},
			&cli.DurationFlag{Name: "retry-max-backoff", Value: tpcc.DefaultMaxBackoff, Usage: "cap on a retry's backoff", Destination: &o.retryMaxBackoff},
			&cli.StringFlag{Name: "isolation", Usage: "read-committed, repeatable-read or serializable (default: repeatable-read on PostgreSQL, serializable on CockroachDB)", Destination: &o.isolation},
		}, o.workload.flags()...),
		Action: func(c *cli.Context) error {
			o.urls = c.Args().Slice()
			aff, err := parseIntList(c.String("partition-affinity"))
			if err != nil {
				return withExit(exitUsage, fmt.Errorf("--partition-affinity: %w", err))
			}
			o.affinity = aff
			o.workload.dbSet = c.IsSet("db")
			return tpccRun(c, o, c.App.Writer)
		},
	}
}

// tpccRun turns the flags into a tpcc.RunConfig and runs the workload.
func tpccRun(c *cli.Context, o tpccRunOptions, stdout io.Writer) error {
	if len(o.urls) == 0 {
		return withExit(exitUsage, errors.New("tpcc run: no connection URL given"))
	}
	wait, err := tpcc.ParseWait(o.wait)
	if err != nil {
		return withExit(exitUsage, err)
	}
	iso, err := tpcc.ParseIsolation(o.isolation)
	if err != nil {
		return withExit(exitUsage, err)
	}
	strategy, err := tpcc.ParsePartitionStrategy(o.strategy)
	if err != nil {
		return withExit(exitUsage, fmt.Errorf("--partition-strategy: %w", err))
	}
	var zones []string
	if o.zones != "" {
		zones = strings.Split(o.zones, ",")
	}
	cfg := tpcc.RunConfig{
		PartitionStrategy: strategy, Zones: zones,
		URLs: o.urls, Warehouses: o.warehouses, ActiveWarehouses: o.activeWarehouses,
		Partitions: o.partitions, Affinity: o.affinity, Ramp: o.ramp, Duration: o.duration,
		Wait: wait, Workers: o.workers, Conns: o.conns, DisplayEvery: o.displayEvery,
		TolerateErrors: o.tolerateErrors, Seed: o.runSeed, Isolation: iso,
		Retry: tpcc.RetryPolicy{Retries: o.maxRetries, Budget: o.retryBudget, BaseBackoff: o.retryBackoff, MaxBackoff: o.retryMaxBackoff},
		Out:   stdout,
	}
	if err := o.workload.apply(&cfg); err != nil {
		return err
	}
	if o.startAt != "" {
		if cfg.StartAt, err = time.Parse(time.RFC3339Nano, o.startAt); err != nil {
			return withExit(exitUsage, fmt.Errorf("--start-at: %w", err))
		}
	}
	out := tpcc.RunOutputs{Ticks: o.ticks, Histograms: o.histograms, Result: o.result}
	if o.prometheusPort < 0 || o.prometheusPort > 65535 {
		return withExit(exitUsage, fmt.Errorf("--prometheus-port %d: want 1-65535, or 0 for none", o.prometheusPort))
	}
	if o.prometheusPort > 0 {
		out.Prometheus = net.JoinHostPort("", strconv.Itoa(o.prometheusPort))
	}
	if err := out.Validate(); err != nil {
		return withExit(exitUsage, err)
	}
	return tpcc.RunTo(c.Context, cfg, out, c.App.ErrWriter)
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

// tpccMergeOptions are the flags of `benchrig tpcc merge`.
type tpccMergeOptions struct {
	warehouses int
	check      bool
	json       string
	files      []string
}

func tpccMergeCommand() *cli.Command {
	var o tpccMergeOptions
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge --histograms files of several workload hosts (like tpcc-merge-results)",
		ArgsUsage: "FILE [FILE...]",
		Description: `Reads ndjson histogram files written by benchrig tpcc run or CockroachDB's
workload run --histograms and prints the summary line and per-operation
table of workload debug tpcc-merge-results. Efficiency uses 12.605 tpmC per
warehouse; --warehouses is the total over all hosts.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Required: true, Usage: "aggregate active warehouses of all hosts", Destination: &o.warehouses},
			&cli.BoolFlag{Name: "check", Usage: "exit 30 unless efficiency >= 85% and every p90 is within its limit", Destination: &o.check},
			&cli.StringFlag{Name: "json", Usage: "also write the merged result as JSON (benchrig.result/v1, kind tpcc.merge) to `FILE`", Destination: &o.json},
		},
		Action: func(c *cli.Context) error {
			o.files = c.Args().Slice()
			return tpccMerge(o, c.App.Writer)
		},
	}
}

func tpccMerge(o tpccMergeOptions, stdout io.Writer) error {
	if len(o.files) == 0 {
		return withExit(exitUsage, errors.New("tpcc merge: no histogram file given"))
	}
	m, err := tpcc.MergeTo(stdout, o.warehouses, o.json, o.files...)
	if err != nil {
		return err
	}
	if o.check {
		if err := m.Check(); err != nil {
			return withExit(exitCheck, err)
		}
	}
	return nil
}
