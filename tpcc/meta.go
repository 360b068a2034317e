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
// host derives C-Run from the stored C-Load (clause 2.1.6.1).
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

// constantsStream is the PCG stream the C-Load constants are drawn from;
// warehouse data uses streams derived from w_id (see streamFor), which
// never reach this value.
const constantsStream = 1 << 63

// MetaForSeed builds the metadata a fresh init with this seed stores.
func MetaForSeed(seed uint64, warehouses, partitions int) Meta {
	return Meta{Seed: seed, Warehouses: warehouses, Partitions: partitions,
		Load: NewLoadConstants(NewRand(seed, constantsStream))}
}
