package tpcc

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ParseGeneratorFlags parses workload's --generator-flags "k=v,k2=v2"
// (keys with or without --); "" is nil.
func ParseGeneratorFlags(s string) (url.Values, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	v := url.Values{}
	for _, kv := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.TrimPrefix(k, "--")
		if !ok || k == "" {
			return nil, fmt.Errorf("--generator-flags: %q is not k=v", kv)
		}
		v.Add(k, val)
	}
	return v, nil
}

// ImportPoolConfig is the pool configuration the IMPORTs run through:
// connected to db, as workload's IMPORTs address tables unqualified in
// the connection's database; nine statements plus the poller.
func ImportPoolConfig(connURL, db string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(connURL)
	if err != nil {
		return nil, err
	}
	cfg.ConnConfig.Database = db
	cfg.MaxConns = 12
	// One unnamed Parse/Describe/Bind per statement, as workload's lib/pq
	// does: nothing cached for statements issued once.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	return cfg, nil
}

// ClusterNodes counts the cluster's live SQL nodes as workload does for
// the release (NodeCountQuery).
func ClusterNodes(ctx context.Context, q Querier, v Version) (int, error) {
	var nodes int
	if err := q.QueryRow(ctx, NodeCountQuery(v)).Scan(&nodes); err != nil {
		return 0, fmt.Errorf("count nodes: %w", err)
	}
	return nodes, nil
}
