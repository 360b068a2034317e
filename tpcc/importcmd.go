package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/internal/redact"
)

// ImportArgs are `benchrig tpcc import`'s flags, named as `workload
// fixtures import tpcc`'s and written straight in.
type ImportArgs struct {
	URLs                   []string
	Warehouses             int           `flag:"warehouses" usage:"number of warehouses"`
	DB                     string        `flag:"db" usage:"database to create and load"`
	Seed                   uint64        `flag:"seed" usage:"the data generator's seed (workload's --seed)"`
	FKs                    bool          `flag:"fks" usage:"add the foreign keys (NOT VALID) after the load"`
	FilesPerNode           int           `flag:"files-per-node" usage:"workload:// sources per node and table"`
	Nodes                  int           `flag:"nodes" usage:"node count (default: asked from the cluster)"`
	Version                string        `flag:"cockroach-version" usage:"the cluster's release with its patch level, e.g. v20.1.17 (auto: ask the server)"`
	InjectStats            bool          `flag:"inject-stats" usage:"inject table statistics after each import"`
	Split                  bool          `flag:"split" usage:"pre-split warehouse, district, history and item and scatter the ranges"`
	Scatter                bool          `flag:"scatter" usage:"scatter the nine tables' ranges after the load"`
	Partitions             int           `flag:"partitions" usage:"partition the tables by warehouse range this many ways"`
	Strategy               string        `flag:"partition-strategy" usage:"replication or leases"`
	Zones                  string        `flag:"zones" usage:"comma-separated zones, one per partition, instead of racks"`
	ReplicateStaticColumns bool          `flag:"replicate-static-columns" usage:"also replicate warehouse and district static columns per partition (v20.2+)"`
	GeneratorFlags         string        `flag:"generator-flags" usage:"k=v,... generator flags for the workload:// sources, for releases after v20.2 whose flag set benchrig does not know"`
	DataLoader             string        `flag:"data-loader" usage:"IMPORT (workload:// sources, on the nodes), or INSERT/COPY (through this host)"`
	Concurrency            int           `flag:"concurrency" usage:"--data-loader=COPY: connections loading warehouses in parallel"`
	DryRun                 bool          `flag:"dry-run" usage:"print the statements and the estimate; contact nothing"`
	Checks                 bool          `flag:"checks" usage:"run the consistency checks (clause 3.3.2, 1-4) after the import, as workload does"`
	Poll                   time.Duration `flag:"poll" usage:"job progress period"`
}

// DefaultImportArgs are tpcc import's defaults: workload fixtures import
// tpcc's.
func DefaultImportArgs() ImportArgs {
	return ImportArgs{
		Warehouses: 1, DB: "tpcc", Seed: 1, FKs: true, FilesPerNode: 1, Version: "auto", InjectStats: true,
		Partitions: 1, Strategy: "replication", DataLoader: "IMPORT", Concurrency: 4, Checks: true, Poll: 10 * time.Second,
	}
}

// options turns the flags into ImportOptions for release b and a
// cluster of nodes.
func (a ImportArgs) options(b Build, nodes int) (ImportOptions, error) {
	v := b.Version
	strategy, err := ParsePartitionStrategy(a.Strategy)
	if err != nil {
		return ImportOptions{}, &UsageError{fmt.Errorf("--partition-strategy: %w", err)}
	}
	zones := splitZones(a.Zones)
	gflags, err := ParseGeneratorFlags(a.GeneratorFlags)
	if err != nil {
		return ImportOptions{}, &UsageError{err}
	}
	return ImportOptions{Version: v, Build: b, DB: a.DB, Warehouses: a.Warehouses, Seed: a.Seed, FKs: a.FKs,
		Nodes: nodes, FilesPerNode: a.FilesPerNode, ReplicateStaticColumns: a.ReplicateStaticColumns,
		GeneratorFlags: gflags, InjectStats: a.InjectStats, Split: a.Split, Scatter: a.Scatter,
		Partitions: a.Partitions, Strategy: strategy, Zones: zones,
		Schema: ImportSchema(v, a.FKs)}, nil
}

// plan is the import's statements; a problem with the flags is a
// *UsageError.
func (a ImportArgs) plan(b Build, nodes int, statsAt time.Time) (*ImportPlan, error) {
	opts, err := a.options(b, nodes)
	if err != nil {
		return nil, err
	}
	opts.StatsCreatedAt = statsAt
	p, err := PlanImport(opts)
	if err != nil {
		return nil, &UsageError{err}
	}
	return p, nil
}

// Run imports (or, DryRun, prints the statements and the estimate to
// stdout without connecting); progress goes to stderr, redrawn in place
// when terminal.
func (a ImportArgs) Run(ctx context.Context, stdout, stderr io.Writer, terminal bool) error {
	switch strings.ToUpper(a.DataLoader) {
	case "IMPORT":
	case "INSERT", "COPY":
		return a.throughHost(ctx, stderr, terminal)
	default:
		return &UsageError{fmt.Errorf("--data-loader %q: want IMPORT, INSERT or COPY", a.DataLoader)}
	}
	if a.DryRun {
		if a.Version == "auto" || a.Nodes < 1 {
			return &UsageError{errors.New("tpcc import --dry-run: give --cockroach-version and --nodes (a dry run asks the cluster nothing)")}
		}
		b, err := ParseBuild(a.Version)
		if err != nil {
			return &UsageError{err}
		}
		p, err := a.plan(b, a.Nodes, time.Time{})
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, p.Display())
		fmt.Fprintln(stdout, "-- "+EstimateImport(a.Warehouses, a.Nodes).String())
		return nil
	}
	if len(a.URLs) != 1 {
		return &UsageError{errors.New("tpcc import: give one connection URL (the imports run on every node anyway)")}
	}
	cfg, err := ImportPoolConfig(a.URLs[0], a.DB)
	if err != nil {
		return &UsageError{fmt.Errorf("tpcc import: %s: %w", redact.URL(a.URLs[0]), err)}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("tpcc import: connect %s: %w", redact.URL(a.URLs[0]), err)
	}
	defer pool.Close()
	var b Build
	if a.Version == "auto" {
		if b, err = DetectBuild(ctx, pool); err != nil {
			return fmt.Errorf("tpcc import: %s: %w", redact.URL(a.URLs[0]), err)
		}
	} else if b, err = ParseBuild(a.Version); err != nil {
		return &UsageError{err}
	}
	v := b.Version
	nodes := a.Nodes
	if nodes < 1 {
		if nodes, err = ClusterNodes(ctx, pool, v); err != nil {
			return fmt.Errorf("tpcc import: %w", err)
		}
	}
	// workload stamps its statistics with the time of the import.
	p, err := a.plan(b, nodes, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tpcc import: CockroachDB %s (generator %s), %d nodes\n%s\n", b, b.Release().Generator, nodes,
		EstimateImport(a.Warehouses, nodes))
	start := time.Now()
	if err := Import(ctx, pool, p, ImportRunOptions{Out: stderr, Poll: a.Poll, Terminal: terminal}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "tpcc import: %d warehouses imported into %s in %s\n", a.Warehouses, a.DB, time.Since(start).Round(time.Second))
	if !a.Checks {
		return nil
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("tpcc import: checks: %w", err)
	}
	defer conn.Release()
	if _, err := Check(ctx, conn.Conn(), CheckOptions{Warehouses: a.Warehouses, Dialect: Cockroach, Out: stderr}); err != nil {
		return usage(fmt.Errorf("tpcc import: checks: %w", err))
	}
	return nil
}

// throughHost is --data-loader=INSERT|COPY: benchrig's own loader (tpcc
// init, then tpcc load) from this host, as workload init's
// --data-loader=INSERT loads through the client.
func (a ImportArgs) throughHost(ctx context.Context, stderr io.Writer, terminal bool) error {
	if a.DryRun {
		return &UsageError{errors.New("tpcc import --dry-run: only with --data-loader=IMPORT")}
	}
	t := Target{URLs: a.URLs, Dialect: "auto"}
	if err := (InitArgs{Target: t, Warehouses: a.Warehouses, Seed: a.Seed, Partitions: a.Partitions,
		Strategy: a.Strategy, Zones: a.Zones}).Run(ctx, stderr); err != nil {
		return err
	}
	return LoadArgs{Target: t, Warehouses: a.Warehouses, Concurrency: a.Concurrency,
		Seed: a.Seed, SeedSet: true}.Run(ctx, stderr, terminal)
}
