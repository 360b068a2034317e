package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Dialect is the SQL flavour of the target database. Both speak the
// PostgreSQL wire protocol; they differ in DDL (partitioning, zone configs,
// DESC primary keys, STORING) and in how loads are made idempotent.
type Dialect int

const (
	Postgres Dialect = iota
	Cockroach
)

// ParseDialect parses "postgres" or "cockroach" (as given to --dialect).
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(s) {
	case "postgres", "postgresql", "pg":
		return Postgres, nil
	case "cockroach", "cockroachdb", "crdb":
		return Cockroach, nil
	}
	return 0, fmt.Errorf("unknown dialect %q (want postgres or cockroach)", s)
}

// DetectDialect asks the server: CockroachDB's version() contains
// "CockroachDB".
func DetectDialect(ctx context.Context, conn *pgx.Conn) (Dialect, error) {
	var v string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return 0, fmt.Errorf("detect dialect: select version(): %w", err)
	}
	if strings.Contains(v, "CockroachDB") {
		return Cockroach, nil
	}
	return Postgres, nil
}

func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case Cockroach:
		return "cockroach"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}
