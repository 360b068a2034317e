package tpcc

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Querier is what reading the load's metadata needs; *pgx.Conn,
// *pgxpool.Pool and pgx.Tx satisfy it.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Meta describes a populated database. `tpcc init` writes it once;
// `tpcc load` on every host reads it (so that hosts loading disjoint
// warehouse ranges use the same seed and C-Load), and `tpcc run` on any
// host derives C-Run from the stored C-Load (clause 2.1.6.1). Run and
// check do not need it (DatabaseMeta): C-Load is a function of the seed.
type Meta struct {
	Seed       uint64
	Warehouses int
	Partitions int // 0 or 1: unpartitioned
	Load       Constants
}

// metaTable holds one row. A typed row rather than key/value pairs: the
// set of facts is small and fixed, and types catch a wrong writer.
const metaTable = "benchrig_meta"

// ErrNoMeta means the database has not been initialised by `tpcc init`.
var ErrNoMeta = errors.New("no benchrig_meta row: run `benchrig tpcc init` first")

// ErrMismatch means flags disagree with the metadata stored by init
// (another seed, warehouse count or partitioning): a usage error.
var ErrMismatch = errors.New("flags do not match the initialised database")

// ReadMeta reads the metadata written by init.
func ReadMeta(ctx context.Context, q Querier) (Meta, error) {
	var m Meta
	var seed int64
	err := q.QueryRow(ctx, `SELECT seed, warehouses, partitions, c_last, c_id, ol_i_id FROM `+metaTable+` WHERE id = 1`).
		Scan(&seed, &m.Warehouses, &m.Partitions, &m.Load.CLast, &m.Load.CID, &m.Load.OLIID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Meta{}, ErrNoMeta
	}
	if err != nil {
		if isUndefinedTable(err) {
			return Meta{}, ErrNoMeta
		}
		return Meta{}, fmt.Errorf("read %s: %w", metaTable, err)
	}
	m.Seed = uint64(seed)
	return m, nil
}

// ReadConstants returns the C-Load constants stored at init.
func ReadConstants(ctx context.Context, q Querier) (Constants, error) {
	m, err := ReadMeta(ctx, q)
	if err != nil {
		return Constants{}, err
	}
	return m.Load, nil
}

// MetaForSeed builds the metadata a fresh init with this seed stores.
// Its C-Load is CockroachDB workload's for the same --seed
// (WorkloadConstants), as `workload init` generates its data; a
// `workload://` IMPORT's nodes generate with C = 0 instead (DataCLoad).
func MetaForSeed(seed uint64, warehouses, partitions int) Meta {
	return Meta{Seed: seed, Warehouses: warehouses, Partitions: partitions, Load: WorkloadConstants(seed)}
}

// DefaultDataSeed is workload's default --seed, the seed of its data
// generator: a database loaded without benchrig_meta (by CockroachDB's
// workload) is assumed to be of this seed unless told otherwise.
const DefaultDataSeed = 1

// DatabaseMeta describes the database a run or check works on. With
// benchrig_meta (written by `tpcc init`) it is that row, and a dataSeed
// other than 0 must equal the stored seed. Without it (a database loaded
// by CockroachDB's workload, or with the meta table dropped), as in
// workload, the warehouses come from the data and the C-Load constants
// from the data seed (dataSeed, 0 meaning DefaultDataSeed): C-Load is a
// pure function of the seed (MetaForSeed), as workload derives its own
// from its --seed, so benchrig's loads need no table to recover it.
// stored reports whether benchrig_meta was there.
//
// The warehouse table must hold exactly w_id 0..W-1 (workload's layout);
// W is then the count. Reading min and max uses the primary key, so this
// costs two index probes however large the database.
func DatabaseMeta(ctx context.Context, q Querier, dataSeed uint64) (m Meta, stored bool, err error) {
	m, err = ReadMeta(ctx, q)
	if err == nil {
		if dataSeed != 0 && dataSeed != m.Seed {
			return m, true, fmt.Errorf("%w: data seed %d, but the database was loaded with seed %d", ErrMismatch, dataSeed, m.Seed)
		}
		return m, true, nil
	}
	if !errors.Is(err, ErrNoMeta) {
		return Meta{}, false, err
	}
	if dataSeed == 0 {
		dataSeed = DefaultDataSeed
	}
	var lo, hi, n int64
	if err := q.QueryRow(ctx, `SELECT coalesce(min(w_id), -1), coalesce(max(w_id), -1), count(*) FROM warehouse`).Scan(&lo, &hi, &n); err != nil {
		if isUndefinedTable(err) {
			return Meta{}, false, fmt.Errorf("%w: no warehouse table (load the database first)", ErrNotLoaded)
		}
		return Meta{}, false, fmt.Errorf("read warehouse: %w", err)
	}
	switch {
	case n == 0:
		return Meta{}, false, fmt.Errorf("%w: the warehouse table is empty", ErrNotLoaded)
	case lo != 0:
		return Meta{}, false, fmt.Errorf("%w: warehouse ids start at %d, not 0: not workload's layout (w_id 0..W-1; a database loaded by benchrig before it numbered warehouses from 0?)", ErrNotLoaded, lo)
	case hi+1 != n:
		return Meta{}, false, fmt.Errorf("%w: %d warehouses with ids 0..%d: some are missing", ErrNotLoaded, n, hi)
	}
	m = MetaForSeed(dataSeed, int(n), 0)
	return m, false, nil
}

// ErrNotLoaded means the database does not hold a TPC-C population in
// workload's layout.
var ErrNotLoaded = errors.New("not a loaded TPC-C database")

// RecordPartitions notes a partitioning in benchrig_meta, when there is
// one: a database loaded by workload has none, and needs none.
func RecordPartitions(ctx context.Context, db Execer, n int) error {
	if _, err := db.Exec(ctx, `UPDATE `+metaTable+` SET partitions = $1 WHERE id = 1`, n); err != nil && !isUndefinedTable(err) {
		return fmt.Errorf("record in %s: %w", metaTable, err)
	}
	return nil
}
