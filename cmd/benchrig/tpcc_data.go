package main

import (
	"github.com/urfave/cli/v2"

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

func tpccInitCommand() *cli.Command {
	var o tpcc.InitArgs
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
			&cli.IntFlag{Name: "warehouses", Value: 1, Usage: "number of warehouses", Destination: &o.Warehouses},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the generated data and of C-Load", Destination: &o.Seed},
			&cli.IntFlag{Name: "partitions", Value: 1, Usage: "partition the warehouses into this many ranges", Destination: &o.Partitions},
			&cli.StringFlag{Name: "partition-strategy", Value: "replication", Usage: "CockroachDB: replication (all replicas in the partition's rack) or leases (one replica + leaseholder)", Destination: &o.Strategy},
			&cli.StringFlag{Name: "zones", Usage: "CockroachDB: comma-separated zones, one per partition, instead of racks", Destination: &o.Zones},
			&cli.BoolFlag{Name: "drop", Usage: "drop the TPC-C tables first", Destination: &o.Drop},
			fksFlag(&o.FKs),
			dialectFlag(&o.Dialect),
		},
		Action: func(c *cli.Context) error {
			o.URLs = c.Args().Slice()
			return o.Run(c.Context, c.App.ErrWriter)
		},
	}
}

func tpccLoadCommand() *cli.Command {
	var o tpcc.LoadArgs
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
			&cli.IntFlag{Name: "warehouses", Usage: "total warehouses; checked against init's", DefaultText: "init's", Destination: &o.Warehouses},
			&cli.IntFlag{Name: "from", Usage: "first warehouse this host loads (w_id, 0-based)", DefaultText: "0", Destination: &o.From},
			&cli.IntFlag{Name: "to", Usage: "last warehouse this host loads (inclusive)", DefaultText: "the last, W-1", Destination: &o.To},
			&cli.IntFlag{Name: "concurrency", Value: 4, Usage: "connections loading warehouses in parallel", Destination: &o.Concurrency},
			&cli.Uint64Flag{Name: "seed", Usage: "checked against the seed stored by init", DefaultText: "init's", Destination: &o.Seed},
			fksFlag(&o.FKs),
			dialectFlag(&o.Dialect),
		},
		Action: func(c *cli.Context) error {
			o.URLs, o.SeedSet, o.ToSet = c.Args().Slice(), c.IsSet("seed"), c.IsSet("to")
			return o.Run(c.Context, c.App.ErrWriter, isTerminal(c.App.ErrWriter))
		},
	}
}

func tpccCheckCommand() *cli.Command {
	var o tpcc.CheckArgs
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
			&cli.IntFlag{Name: "warehouses", Usage: "expected warehouses (w_id 0..W-1); checked against benchrig_meta's, or without it against the warehouse table", DefaultText: "benchrig_meta's, or unchecked", Destination: &o.Warehouses},
			&cli.BoolFlag{Name: "expensive", Aliases: []string{"expensive-checks"}, Usage: "also check conditions 5-12", Destination: &o.Expensive},
			dialectFlag(&o.Dialect),
		},
		Action: func(c *cli.Context) error {
			o.URLs = c.Args().Slice()
			return o.Run(c.Context, c.App.Writer)
		},
	}
}
