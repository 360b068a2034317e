package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer runs statements; *pgx.Conn, *pgxpool.Pool and pgx.Tx satisfy it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// DB is what init needs: statements and one-row queries.
type DB interface {
	Execer
	Querier
}

// InitOptions configure Init.
type InitOptions struct {
	Warehouses int
	Seed       uint64
	Dialect    Dialect
	// Partitions > 1 partitions the tables by warehouse range.
	Partitions int
	// Partition lays a CockroachDB database out in the partitions (its
	// --partition-strategy and --zones: crdb/fixtures.PartitionCockroach,
	// given by the command layer); PostgreSQL's partitions are in its
	// CREATE TABLEs.
	Partition func(ctx context.Context, db DB, p Partitions) error
	// Drop drops the nine tables and the bookkeeping tables first.
	Drop bool
	// Version is workload's generator version whose schema to create
	// (CockroachDB; "" is Version22), FKs its --fks (see SchemaOptions).
	Version string
	FKs     bool
	// FillFactor of the tables updated in place (PostgreSQL; 0: 100), see
	// SchemaOptions.
	FillFactor int
	// Install adds what the load profiles need beside the schema (the
	// functions profile's PL/pgSQL functions on PostgreSQL): the command
	// layer gives tpcc/profile.Install, this package knowing no profile.
	Install func(ctx context.Context, db Execer, d Dialect) error
}

// Init creates the schema and stores the load metadata (seed, C-Load).
// Re-running it with the same seed and warehouse count is a no-op; a
// different seed or count against existing metadata is an error, since
// rows already loaded were drawn from the stored values (pass Drop to
// start over).
func Init(ctx context.Context, db DB, o InitOptions) error {
	parts := o.Partitions
	if parts < 1 {
		parts = 1
	}
	p, err := NewPartitions(o.Warehouses, o.Warehouses, parts)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if o.Drop {
		for _, s := range DropStatements() {
			if _, err := db.Exec(ctx, s); err != nil {
				return fmt.Errorf("init: %s: %w", s, err)
			}
		}
	}
	if old, err := ReadMeta(ctx, db); err == nil {
		// CockroachDB partitions by ALTER, so a loaded database can be
		// partitioned later (the recipes do it after import); PostgreSQL's
		// declarative partitions exist only from CREATE TABLE.
		repartition := o.Dialect == Cockroach && old.Partitions <= 1 && parts > 1
		if old.Seed != o.Seed || old.Warehouses != o.Warehouses || (old.Partitions != parts && !repartition) {
			return fmt.Errorf("init: %w: database already initialised with seed %d, %d warehouses, %d partitions (asked: seed %d, %d warehouses, %d partitions); pass --drop to start over",
				ErrMismatch, old.Seed, old.Warehouses, old.Partitions, o.Seed, o.Warehouses, parts)
		}
	} else if !errors.Is(err, ErrNoMeta) {
		return fmt.Errorf("init: %w", err)
	}
	stmts, err := SchemaStatements(SchemaOptions{Dialect: o.Dialect, Version: o.Version, FKs: o.FKs, Parts: p, FillFactor: o.FillFactor})
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("init: %s: %w", FirstLine(s), err)
		}
	}
	if o.Install != nil {
		if err := o.Install(ctx, db, o.Dialect); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	if o.Dialect == Cockroach && parts > 1 {
		if o.Partition == nil {
			return errors.New("init: partitioning CockroachDB needs its fixtures (the command layer gives them)")
		}
		if err := o.Partition(ctx, db, p); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	m := MetaForSeed(o.Seed, o.Warehouses, parts)
	// ON CONFLICT DO NOTHING: concurrent inits with equal flags both succeed.
	if _, err := db.Exec(ctx, `INSERT INTO `+metaTable+` (id, seed, warehouses, partitions, c_last, c_id, ol_i_id)
VALUES (1, $1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		int64(m.Seed), m.Warehouses, m.Partitions, m.Load.CLast, m.Load.CID, m.Load.OLIID); err != nil {
		return fmt.Errorf("init: write %s: %w", metaTable, err)
	}
	return nil
}

// DropStatements drop everything Init creates.
func DropStatements() []string {
	var out []string
	ts := schemaTables()
	for i := len(ts) - 1; i >= 0; i-- {
		out = append(out, "DROP TABLE IF EXISTS "+ts[i].Name+" CASCADE")
	}
	return append(out, "DROP TABLE IF EXISTS "+loadedTable, "DROP TABLE IF EXISTS "+metaTable)
}
