package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/crdb/fixtures"
	"github.com/benchrig/benchrig/internal/redact"
	"github.com/benchrig/benchrig/tpcc"
	loadprofile "github.com/benchrig/benchrig/tpcc/profile"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// UsageError is an invocation of the driver's commands that cannot be
// carried out as given: a flag out of range, or flags that contradict
// the database (ErrMismatch, ErrNoMeta, ErrNotLoaded). The command line
// maps it to its usage exit code.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usage marks errors caused by the invocation as *UsageError; others keep
// their classification (an interrupted load is still an interruption).
func Usage(err error) error {
	if errors.Is(err, tpcc.ErrMismatch) || errors.Is(err, tpcc.ErrNoMeta) || errors.Is(err, tpcc.ErrNotLoaded) {
		return &UsageError{err}
	}
	return err
}

// Target is what the data commands (init, load, check) connect to: the
// URLs, and the dialect ("auto", "" or a name; auto asks the server).
type Target struct {
	URLs    []string
	Dialect string `flag:"dialect" usage:"postgres, cockroach, or auto (ask the server)"`
}

// connect connects to the first URL and resolves the dialect.
func (t Target) connect(ctx context.Context) (*pgx.Conn, tpcc.Dialect, error) {
	if len(t.URLs) == 0 {
		return nil, 0, &UsageError{errors.New("no connection URL given (e.g. postgres://user@host:5432/tpcc)")}
	}
	var d tpcc.Dialect
	if t.Dialect != "" && t.Dialect != "auto" {
		var err error
		if d, err = tpcc.ParseDialect(t.Dialect); err != nil {
			return nil, 0, &UsageError{fmt.Errorf("--dialect: %w", err)}
		}
	}
	conn, err := pgx.Connect(ctx, t.URLs[0])
	if err != nil {
		return nil, 0, fmt.Errorf("connect %s: %w", redact.URL(t.URLs[0]), err)
	}
	if t.Dialect == "" || t.Dialect == "auto" {
		if d, err = tpcc.DetectDialect(ctx, conn); err != nil {
			conn.Close(ctx)
			return nil, 0, err
		}
	}
	return conn, d, nil
}

// SplitZones is --zones: comma-separated zones, one per partition, each
// trimmed ("" is none).
func SplitZones(s string) []string {
	var zones []string
	if s != "" {
		for _, z := range strings.Split(s, ",") {
			zones = append(zones, strings.TrimSpace(z))
		}
	}
	return zones
}

// InitArgs are `benchrig tpcc init`'s flags, written straight in.
type InitArgs struct {
	Warehouses int    `flag:"warehouses" usage:"number of warehouses"`
	Seed       uint64 `flag:"seed" usage:"seed of the generated data and of C-Load"`
	Partitions int    `flag:"partitions" usage:"partition the warehouses into this many ranges"`
	Strategy   string `flag:"partition-strategy" usage:"CockroachDB: replication (all replicas in the partition's rack) or leases (one replica + leaseholder)"`
	Zones      string `flag:"zones" usage:"CockroachDB: comma-separated zones, one per partition, instead of racks"`
	Drop       bool   `flag:"drop" usage:"drop the TPC-C tables first"`
	FKs        bool   `flag:"fks" usage:"add workload's 10 foreign keys (NOT VALID) after the load; --fks=false to omit"`
	FillFactor int    `flag:"fillfactor" usage:"PostgreSQL: fillfactor (10..100) of the six tables updated in place, as pgbench -i -F, so that their updates can stay on the page (0: the server's 100); set when the tables are created, an existing table keeps its own"`
	Target
}

// DefaultInitArgs are tpcc init's defaults.
func DefaultInitArgs() InitArgs {
	return InitArgs{Warehouses: 1, Seed: 1, Partitions: 1, Strategy: "replication", FKs: true, Target: Target{Dialect: "auto"}}
}

// Run creates the database if missing and the schema, then prints the
// summary line (generator version, seed, C-Load) to w.
func (a InitArgs) Run(ctx context.Context, w io.Writer) error {
	strategy, err := crdb.ParsePartitionStrategy(a.Strategy)
	if err != nil {
		return &UsageError{fmt.Errorf("--partition-strategy: %w", err)}
	}
	zones := SplitZones(a.Zones)
	if _, err := tpcc.NewPartitions(a.Warehouses, a.Warehouses, max(a.Partitions, 1)); err != nil {
		return &UsageError{err}
	}
	if err := runspec.CheckFillFactor(a.FillFactor); err != nil {
		return &UsageError{fmt.Errorf("--%w", err)}
	}
	if len(a.URLs) > 0 {
		if err := tpcc.CreateDatabase(ctx, a.URLs[0]); err != nil {
			return fmt.Errorf("tpcc init: %w", err)
		}
	}
	conn, d, err := a.connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	defer conn.Close(context.Background())
	version, err := ServerGeneratorVersion(ctx, conn, d)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	err = tpcc.Init(ctx, conn, tpcc.InitOptions{Warehouses: a.Warehouses, Seed: a.Seed, Dialect: d,
		Partitions: a.Partitions, Drop: a.Drop, Version: version, FKs: a.FKs, FillFactor: a.FillFactor,
		Partition: func(ctx context.Context, db tpcc.DB, p tpcc.Partitions) error {
			return fixtures.PartitionCockroach(ctx, db, p, strategy, zones)
		},
		Install: loadprofile.Install})
	if err != nil {
		return Usage(fmt.Errorf("tpcc init: %w", err))
	}
	m, err := tpcc.ReadMeta(ctx, conn)
	if err != nil {
		return fmt.Errorf("tpcc init: %w", err)
	}
	fmt.Fprintln(w, tpcc.InitSummary(d, version, m))
	return nil
}

// LoadArgs are `benchrig tpcc load`'s flags. To is inclusive, as the
// flag is; ToSet and SeedSet say whether those flags were given.
type LoadArgs struct {
	Warehouses  int    `flag:"warehouses" usage:"total warehouses; checked against init's" default:"init's"`
	From        int    `flag:"from" usage:"first warehouse this host loads (w_id, 0-based)" default:"0"`
	To          int    `flag:"to" usage:"last warehouse this host loads (inclusive)" default:"the last, W-1"`
	ToSet       bool   `isset:"to"`
	Concurrency int    `flag:"concurrency" usage:"connections loading warehouses in parallel"`
	Seed        uint64 `flag:"seed" usage:"checked against the seed stored by init" default:"init's"`
	SeedSet     bool   `isset:"seed"`
	FKs         bool   `flag:"fks" usage:"add workload's 10 foreign keys (NOT VALID) after the load; --fks=false to omit"`
	Target
}

// DefaultLoadArgs are tpcc load's defaults.
func DefaultLoadArgs() LoadArgs {
	return LoadArgs{Concurrency: 4, FKs: true, Target: Target{Dialect: "auto"}}
}

// Run loads the missing warehouses of From..To with progress on w
// (redrawn in place when terminal), then prints the load's summary.
func (a LoadArgs) Run(ctx context.Context, w io.Writer, terminal bool) error {
	if a.Concurrency < 1 {
		return &UsageError{errors.New("--concurrency must be at least 1")}
	}
	if a.From < 0 || (a.ToSet && a.To < a.From) {
		return &UsageError{fmt.Errorf("--from %d --to %d: want 0 <= from <= to", a.From, a.To)}
	}
	to := 0 // the last warehouse
	if a.ToSet {
		to = a.To + 1 // LoadOptions.To is exclusive
	}
	conn, d, err := a.connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcc load: %w", err)
	}
	conn.Close(ctx)
	lo := tpcc.LoadOptions{Warehouses: a.Warehouses, From: a.From, To: to, Concurrency: a.Concurrency,
		Dialect: d, FKs: a.FKs, Progress: w, ProgressTerminal: terminal}
	if a.SeedSet {
		lo.Seed = &a.Seed
	}
	st, err := tpcc.Load(ctx, tpcc.URLConnector(a.URLs), lo)
	if err != nil {
		return Usage(fmt.Errorf("tpcc load: %w", err))
	}
	fmt.Fprintln(w, st)
	return nil
}

// CheckArgs are `benchrig tpcc check`'s flags.
type CheckArgs struct {
	Warehouses int  `flag:"warehouses" usage:"expected warehouses (w_id 0..W-1); checked against benchrig_meta's, or without it against the warehouse table" default:"benchrig_meta's, or unchecked"`
	Expensive  bool `flag:"expensive,expensive-checks" usage:"also check conditions 5-12"`
	Target
}

// DefaultCheckArgs are tpcc check's defaults.
func DefaultCheckArgs() CheckArgs { return CheckArgs{Target: Target{Dialect: "auto"}} }

// Run checks the consistency conditions, a line each on w; a violation
// is an error IsViolation recognises.
func (a CheckArgs) Run(ctx context.Context, w io.Writer) error {
	conn, d, err := a.connect(ctx)
	if err != nil {
		return fmt.Errorf("tpcc check: %w", err)
	}
	defer conn.Close(context.Background())
	_, err = tpcc.Check(ctx, conn, tpcc.CheckOptions{Expensive: a.Expensive, Warehouses: a.Warehouses, Dialect: d, Out: w})
	if err != nil && !tpcc.IsViolation(err) {
		return Usage(fmt.Errorf("tpcc check: %w", err))
	}
	if err != nil {
		return fmt.Errorf("tpcc check: %w", err)
	}
	return nil
}
