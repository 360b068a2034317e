package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/tpcc"
)

// tpccDataCommands: benchrig tpcc init | load | check. Flag names are
// CockroachDB `workload init|check tpcc`'s where the concept is the same;
// connection URLs are positional, as there.
func tpccDataCommands() []*cli.Command {
	return []*cli.Command{tpccInitCommand(), tpccLoadCommand(), tpccCheckCommand()}
}

// dialectFlag is shared by the three commands: the dialect is detected
// from the server unless forced.
func dialectFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "dialect", Value: "auto", Usage: "postgres, cockroach, or auto (ask the server)", Destination: dst}
}

// fksFlag is workload's --fks: on by default.
func fksFlag(dst *bool) cli.Flag {
	return &cli.BoolFlag{Name: "fks", Value: true, Usage: "add workload's 10 foreign keys (NOT VALID) after the load; --fks=false to omit", Destination: dst}
}

// connectFirst connects to the first URL and resolves the dialect.
func connectFirst(ctx context.Context, urls []string, dialect string) (*pgx.Conn, tpcc.Dialect, error) {
	if len(urls) == 0 {
		return nil, 0, withExit(exitUsage, errors.New("no connection URL given (e.g. postgres://user@host:5432/tpcc)"))
	}
	conn, err := pgx.Connect(ctx, urls[0])
	if err != nil {
		return nil, 0, fmt.Errorf("connect %s: %w", redact.URL(urls[0]), err)
	}
	d, err := resolveDialect(ctx, conn, dialect)
	if err != nil {
		conn.Close(ctx)
		return nil, 0, err
	}
	return conn, d, nil
}

func resolveDialect(ctx context.Context, conn *pgx.Conn, s string) (tpcc.Dialect, error) {
	if s == "" || s == "auto" {
		return tpcc.DetectDialect(ctx, conn)
	}
	d, err := tpcc.ParseDialect(s)
	if err != nil {
		return 0, withExit(exitUsage, fmt.Errorf("--dialect: %w", err))
	}
	return d, nil
}

// tpccInitOptions are the flags of `benchrig tpcc init`.
type tpccInitOptions struct {
	urls       []string
	warehouses int
	seed       uint64
	partitions int
	strategy   string
	zones      string
	drop       bool
	fks        bool
	dialect    string
}

func tpccInitCommand() *cli.Command {
	var o tpccInitOptions
	return &cli.Command{
		Name:      "init",
		Usage:     "create the TPC-C schema (and the database if missing) and store the load's seed and NURand C-Load",
		ArgsUsage: "URL",
		Description: `Creates the nine tables with their primary keys and the two secondary
indexes (customer by last name, order by customer), IF NOT EXISTS, laid
out as CockroachDB's workload lays them out (its generator version for the
server's release; on v20.1 and older with --fks also its FK indexes). With
--partitions P > 1: PostgreSQL tables are declaratively partitioned by
warehouse range; on CockroachDB the tables and indexes are PARTITION BY
RANGE and partition i is pinned to locality rack=i (or zone --zones[i]) by
--partition-strategy. Re-running with the same flags is a no-op.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Value: 1, Usage: "number of warehouses", Destination: &o.warehouses},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the generated data and of C-Load", Destination: &o.seed},
			&cli.IntFlag{Name: "partitions", Value: 1, Usage: "partition the warehouses into this many ranges", Destination: &o.partitions},
			&cli.StringFlag{Name: "partition-strategy", Value: "replication", Usage: "CockroachDB: replication (all replicas in the partition's rack) or leases (one replica + leaseholder)", Destination: &o.strategy},
			&cli.StringFlag{Name: "zones", Usage: "CockroachDB: comma-separated zones, one per partition, instead of racks", Destination: &o.zones},
			&cli.BoolFlag{Name: "drop", Usage: "drop the TPC-C tables first", Destination: &o.drop},
			fksFlag(&o.fks),
			dialectFlag(&o.dialect),
		},
		Action: func(c *cli.Context) error {
			o.urls = c.Args().Slice()
			return tpccInit(c.Context, o, c.App.ErrWriter)
		},
	}
}

func tpccInit(ctx context.Context, o tpccInitOptions, stderr io.Writer) error {
	strategy, err := tpcc.ParsePartitionStrategy(o.strategy)
	if err != nil {
		return withExit(exitUsage, fmt.Errorf("--partition-strategy: %w", err))
	}
	var zones []string
	if o.zones != "" {
		for _, z := range strings.Split(o.zones, ",") {
			zones = append(zones, strings.TrimSpace(z))
		}
	}
	if _, err := tpcc.NewPartitions(o.warehouses, o.warehouses, max(o.partitions, 1)); err != nil {
		return withExit(exitUsage, err)
	}
	if len(o.urls) > 0 {
		if err := tpcc.CreateDatabase(ctx, o.urls[0]); err != nil {
			return fmt.Errorf("tpcc init: %w", err)
		}
	}
	conn, d, err := connectFirst(ctx, o.urls, o.dialect)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	defer conn.Close(context.Background())
	version, err := tpcc.ServerGeneratorVersion(ctx, conn, d)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	err = tpcc.Init(ctx, conn, tpcc.InitOptions{Warehouses: o.warehouses, Seed: o.seed, Dialect: d,
		Partitions: o.partitions, Strategy: strategy, Zones: zones, Drop: o.drop, Version: version, FKs: o.fks})
	if err != nil {
		return dataErr(fmt.Errorf("tpcc init: %w", err))
	}
	m, err := tpcc.ReadMeta(ctx, conn)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	fmt.Fprintln(stderr, tpcc.InitSummary(d, version, m))
	return nil
}

// tpccLoadOptions are the flags of `benchrig tpcc load`.
type tpccLoadOptions struct {
	urls        []string
	warehouses  int
	from, to    int
	toSet       bool
	concurrency int
	seed        uint64
	seedSet     bool
	fks         bool
	dialect     string
}

func tpccLoadCommand() *cli.Command {
	var o tpccLoadOptions
	return &cli.Command{
		Name:      "load",
		Usage:     "populate the TPC-C tables (clause 4.3.3.1) through COPY, resumably",
		ArgsUsage: "URL [URL...]",
		Description: `Loads every warehouse of --from..--to (inclusive; warehouse ids are 0-based
as in CockroachDB's workload) that is not loaded yet, and the item table if
missing. Each warehouse is atomic, so an interrupted load re-run
with the same flags finishes the missing warehouses and never duplicates
rows; several hosts can load disjoint ranges of one database at once.
Connections (--concurrency, one warehouse each at a time) are spread over
the URLs. The data is a function of the seed stored by init. The loader
that completes the population adds workload's 10 foreign keys (--fks, on
by default as in workload: NOT VALID, then validated on PostgreSQL) and,
on PostgreSQL, runs ANALYZE. Progress goes to stderr every second: warehouses
and rows done of the total, rate and ETA; redrawn in place on a terminal, a
line per second otherwise (logs, pipes).`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Usage: "total warehouses; checked against init's", DefaultText: "init's", Destination: &o.warehouses},
			&cli.IntFlag{Name: "from", Usage: "first warehouse this host loads (w_id, 0-based)", DefaultText: "0", Destination: &o.from},
			&cli.IntFlag{Name: "to", Usage: "last warehouse this host loads (inclusive)", DefaultText: "the last, W-1", Destination: &o.to},
			&cli.IntFlag{Name: "concurrency", Value: 4, Usage: "connections loading warehouses in parallel", Destination: &o.concurrency},
			&cli.Uint64Flag{Name: "seed", Usage: "checked against the seed stored by init", DefaultText: "init's", Destination: &o.seed},
			fksFlag(&o.fks),
			dialectFlag(&o.dialect),
		},
		Action: func(c *cli.Context) error {
			o.urls = c.Args().Slice()
			o.seedSet = c.IsSet("seed")
			o.toSet = c.IsSet("to")
			return tpccLoad(c.Context, o, c.App.ErrWriter)
		},
	}
}

func tpccLoad(ctx context.Context, o tpccLoadOptions, stderr io.Writer) error {
	if o.concurrency < 1 {
		return withExit(exitUsage, errors.New("--concurrency must be at least 1"))
	}
	if o.from < 0 || (o.toSet && o.to < o.from) {
		return withExit(exitUsage, fmt.Errorf("--from %d --to %d: want 0 <= from <= to", o.from, o.to))
	}
	to := 0 // the last warehouse
	if o.toSet {
		to = o.to + 1 // LoadOptions.To is exclusive
	}
	conn, d, err := connectFirst(ctx, o.urls, o.dialect)
	if err != nil {
		return fmt.Errorf("tpcc load: %w", err)
	}
	conn.Close(ctx)
	lo := tpcc.LoadOptions{Warehouses: o.warehouses, From: o.from, To: to, Concurrency: o.concurrency,
		Dialect: d, FKs: o.fks, Progress: stderr, ProgressTerminal: isTerminal(stderr)}
	if o.seedSet {
		lo.Seed = &o.seed
	}
	st, err := tpcc.Load(ctx, tpcc.URLConnector(o.urls), lo)
	if err != nil {
		return dataErr(fmt.Errorf("tpcc load: %w", err))
	}
	fmt.Fprintln(stderr, st)
	return nil
}

// tpccCheckOptions are the flags of `benchrig tpcc check`.
type tpccCheckOptions struct {
	urls       []string
	warehouses int
	expensive  bool
	dialect    string
}

func tpccCheckCommand() *cli.Command {
	var o tpccCheckOptions
	return &cli.Command{
		Name:      "check",
		Usage:     "verify the consistency conditions of clause 3.3.2",
		ArgsUsage: "URL",
		Description: `Checks conditions 1-4 (required after population and after a run), or all
twelve with --expensive (5-12 scan order_line, customer and history), on
one snapshot, and whether every warehouse was loaded (benchrig_loaded; on
a database benchrig did not load, such as one of CockroachDB's workload,
whether the warehouse table holds w_id 0..W-1 for --warehouses W). Works
without benchrig_meta. Prints one line per
condition: check <n> <name>: PASS|FAIL|SKIP (detail). Condition 11 holds
only until the first Delivery and is skipped after a run. Exits 30 on a
violation.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "warehouses", Usage: "expected warehouses (w_id 0..W-1); checked against benchrig_meta's, or without it against the warehouse table", DefaultText: "benchrig_meta's, or unchecked", Destination: &o.warehouses},
			&cli.BoolFlag{Name: "expensive", Aliases: []string{"expensive-checks"}, Usage: "also check conditions 5-12", Destination: &o.expensive},
			dialectFlag(&o.dialect),
		},
		Action: func(c *cli.Context) error {
			o.urls = c.Args().Slice()
			return tpccCheck(c.Context, o, c.App.Writer)
		},
	}
}

func tpccCheck(ctx context.Context, o tpccCheckOptions, stdout io.Writer) error {
	conn, d, err := connectFirst(ctx, o.urls, o.dialect)
	if err != nil {
		return fmt.Errorf("tpcc check: %w", err)
	}
	defer conn.Close(context.Background())
	_, err = tpcc.Check(ctx, conn, tpcc.CheckOptions{Expensive: o.expensive, Warehouses: o.warehouses, Dialect: d, Out: stdout})
	if tpcc.IsViolation(err) {
		return withExit(exitCheck, fmt.Errorf("tpcc check: %w", err))
	}
	if err != nil {
		return dataErr(fmt.Errorf("tpcc check: %w", err))
	}
	return nil
}

// dataErr marks init/load/check errors whose cause is the invocation
// (flags that contradict the database, or a database never initialised)
// as usage errors; others keep their classification (an interrupted load
// is still 130).
func dataErr(err error) error {
	if errors.Is(err, tpcc.ErrMismatch) || errors.Is(err, tpcc.ErrNoMeta) || errors.Is(err, tpcc.ErrNotLoaded) {
		return withExit(exitUsage, err)
	}
	return err
}
