package command

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/tpcc"
)

// ServerGeneratorVersion is the workload generator version whose layout
// init follows on the connected server: "" on PostgreSQL, on CockroachDB
// GeneratorVersion of its release.
func ServerGeneratorVersion(ctx context.Context, conn *pgx.Conn, d tpcc.Dialect) (string, error) {
	if d != tpcc.Cockroach {
		return "", nil
	}
	var v string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("select version(): %w", err)
	}
	return crdb.GeneratorVersion(v)
}
