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
	Warehouses             int
	DB                     string
	Seed                   uint64
	FKs                    bool
	FilesPerNode, Nodes    int
	Version                string // "auto": ask the server
	InjectStats            bool
	Split, Scatter         bool
	Partitions             int
	Strategy, Zones        string
	ReplicateStaticColumns bool
	GeneratorFlags         string
	DataLoader             string // IMPORT, INSERT or COPY
	Concurrency            int
	DryRun                 bool
	Checks                 bool
	Poll                   time.Duration
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
