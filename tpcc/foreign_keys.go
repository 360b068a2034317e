package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// fkState is what the catalog says about the foreign keys present.
type fkState struct {
	name      map[foreignKey]string // constraint name of each present FK
	validated map[foreignKey]bool
	// partitioned tables (PostgreSQL declarative partitioning), which
	// before PostgreSQL 18 refuse a NOT VALID foreign key.
	partitioned map[string]bool
}

// readForeignKeys finds the ten foreign keys by (table, referenced table),
// whatever their names: CockroachDB and PostgreSQL name unnamed
// constraints differently, and workload does not name them. pg_catalog
// is read on both dialects (CockroachDB provides it).
func readForeignKeys(ctx context.Context, q pgx.Tx, d Dialect) (fkState, error) {
	st := fkState{name: map[foreignKey]string{}, validated: map[foreignKey]bool{}, partitioned: map[string]bool{}}
	byPair := map[[2]string]foreignKey{}
	for _, fk := range foreignKeys {
		byPair[[2]string{strings.Trim(fk.table, `"`), strings.Trim(fk.ref, `"`)}] = fk
	}
	rows, err := q.Query(ctx, `SELECT t.relname::text, r.relname::text, c.conname::text, c.convalidated
FROM pg_catalog.pg_constraint c
JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
JOIN pg_catalog.pg_class r ON r.oid = c.confrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
WHERE c.contype = 'f' AND n.nspname = current_schema()`)
	if err != nil {
		return st, fmt.Errorf("read pg_constraint: %w", err)
	}
	for rows.Next() {
		var t, r, name string
		var valid bool
		if err := rows.Scan(&t, &r, &name, &valid); err != nil {
			rows.Close()
			return st, fmt.Errorf("read pg_constraint: %w", err)
		}
		// Partitions of partitioned tables carry copies of the
		// constraint; their names are not in byPair.
		if fk, ok := byPair[[2]string{t, r}]; ok {
			st.name[fk] = name
			st.validated[fk] = valid
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("read pg_constraint: %w", err)
	}
	if d != Postgres {
		return st, nil
	}
	rows, err = q.Query(ctx, `SELECT c.relname::text FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'p' AND n.nspname = current_schema()`)
	if err != nil {
		return st, fmt.Errorf("read pg_class: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return st, fmt.Errorf("read pg_class: %w", err)
	}
	for _, n := range names {
		st.partitioned[n] = true
	}
	return st, nil
}

// AddForeignKeys adds those of the ten foreign keys (ForeignKeys) that
// are missing, as workload's PostLoad does with --fks: NOT VALID, since
// the generated data satisfies them and validation would scan it all
// again. It is idempotent: existing keys are recognised by (table,
// referenced table), which no two of the ten share.
//
// On PostgreSQL it runs in one transaction under an advisory lock (two
// loaders finishing at once add each key once) and then VALIDATEs every
// key, so that the keys exist and hold; a partitioned table, which
// PostgreSQL before 18 refuses a NOT VALID key on, gets it validated
// directly. On CockroachDB the keys stay NOT VALID, as workload leaves
// them.
func AddForeignKeys(ctx context.Context, conn *pgx.Conn, d Dialect) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("foreign keys: begin: %w", err)
	}
	defer tx.Rollback(context.Background())
	if d == Postgres {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('benchrig tpcc foreign keys'))`); err != nil {
			return fmt.Errorf("foreign keys: lock: %w", err)
		}
	}
	st, err := readForeignKeys(ctx, tx, d)
	if err != nil {
		return fmt.Errorf("foreign keys: %w", err)
	}
	if d == Cockroach {
		// CockroachDB runs schema changes after commit; issue them
		// outside the read's transaction, one by one, as workload does.
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("foreign keys: %w", err)
		}
		for _, fk := range foreignKeys {
			if _, ok := st.name[fk]; ok {
				continue
			}
			if _, err := conn.Exec(ctx, fk.statement(true)); err != nil {
				msg := err.Error()
				switch {
				case strings.Contains(msg, "columns cannot be used by multiple foreign key constraints"):
					// Added meanwhile (CockroachDB v20.1's error, which workload ignores too).
				case strings.Contains(msg, "foreign key requires an existing index"):
					return fmt.Errorf("foreign keys: %s: %w (CockroachDB v20.1 and older need generator version %s's FK indexes)", fk.statement(true), err, Version21)
				default:
					return fmt.Errorf("foreign keys: %s: %w", fk.statement(true), err)
				}
			}
		}
		return nil
	}
	added := false
	for _, fk := range foreignKeys {
		if _, ok := st.name[fk]; ok {
			continue
		}
		notValid := !st.partitioned[strings.Trim(fk.table, `"`)]
		if _, err := tx.Exec(ctx, fk.statement(notValid)); err != nil {
			return fmt.Errorf("foreign keys: %s: %w", fk.statement(notValid), err)
		}
		added = true
	}
	if added {
		if st, err = readForeignKeys(ctx, tx, d); err != nil {
			return fmt.Errorf("foreign keys: %w", err)
		}
	}
	for _, fk := range foreignKeys {
		name, ok := st.name[fk]
		if !ok {
			return fmt.Errorf("foreign keys: %s was added but is not in pg_constraint", fk.statement(true))
		}
		if st.validated[fk] {
			continue
		}
		v := "ALTER TABLE " + fk.table + " VALIDATE CONSTRAINT " + pgx.Identifier{name}.Sanitize()
		if _, err := tx.Exec(ctx, v); err != nil {
			return fmt.Errorf("foreign keys: %s: %w", v, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("foreign keys: commit: %w", err)
	}
	return nil
}
