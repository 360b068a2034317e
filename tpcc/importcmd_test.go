package tpcc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestTpccImportDryRun is the 100k plan's import as `benchrig tpcc import
// --dry-run` prints it: nine IMPORTs of 81 nodes' workload:// sources
// (82 where the batches do not divide by 81, as workload cuts them),
// v20.1.17's generator 2.2.0 with deprecated-fk-indexes=true, the FKs,
// "order"@order_idx but no FK index partitioned, replicated_idx_0..26
// (v20.1's name) and the estimate.
func TestTpccImportDryRun(t *testing.T) {
	o := ImportArgs{Warehouses: 100000, DB: "tpcc", Seed: 1, FKs: true, FilesPerNode: 1, Nodes: 81,
		Version: "v20.1.17", InjectStats: true, Partitions: 27, Strategy: "replication", DataLoader: "IMPORT", DryRun: true}
	var out, errOut bytes.Buffer
	if err := o.Run(context.Background(), &out, &errOut, false); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if n := strings.Count(s, "\nIMPORT TABLE \""); n != 9 {
		t.Errorf("%d IMPORT TABLE statements", n)
	}
	// v20.1.17 carries generator 2.2.0 and its deprecated-fk-indexes flag.
	if n := strings.Count(s, "workload:///csv/tpcc/customer?deprecated-fk-indexes=true&fks=true&interleaved=false&row-end="); n != 82 {
		t.Errorf("%d customer sources", n)
	}
	for _, want := range []string{"version=2.2.0", "warehouses=100000", "&seed=1&", `ALTER INDEX "order"@order_idx PARTITION BY`,
		"PARTITION p0_0 VALUES FROM (0) to (3703),", "CREATE UNIQUE INDEX replicated_idx_26 ON item",
		"ALTER TABLE district ADD FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id) NOT VALID;",
		"-- import estimate: 100000 warehouses on 81 nodes"} {
		if !strings.Contains(s, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	if strings.Contains(s, "replicated_idx_27") || strings.Contains(s, "version=2.1.0") || strings.Contains(s, "fk_idx PARTITION BY") {
		t.Error("28th item replica, or v20.1.8's generator or partitioning")
	}
	// A dry run asks the cluster nothing, so it needs the version and nodes.
	o.Nodes = 0
	if err := o.Run(context.Background(), &out, &errOut, false); !errors.As(err, new(*UsageError)) {
		t.Errorf("dry run without --nodes: %v", err)
	}
	o.Nodes, o.DataLoader = 3, "csv"
	if err := o.Run(context.Background(), &out, &errOut, false); err == nil {
		t.Error("--data-loader csv accepted")
	}
}

// TestTpccImportCopyLoader: --data-loader=COPY loads through this host
// (tpcc init + tpcc load), here into real PostgreSQL.
func TestTpccImportCopyLoader(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.CreateDatabase(t, "imp")
	o := ImportArgs{URLs: []string{url}, Warehouses: 1, Seed: 1, FKs: true, Partitions: 1,
		Strategy: "replication", DataLoader: "COPY", Concurrency: 2}
	var out, errOut bytes.Buffer
	if err := o.Run(context.Background(), &out, &errOut, false); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	// Not a terminal: the progress is plain lines, the last with the
	// elapsed time.
	if e := errOut.String(); strings.ContainsAny(e, "\r\x1b") || !strings.Contains(e, "load: 1/1 warehouses, ") || !strings.Contains(e, " rows/s, elapsed ") {
		t.Errorf("progress on a non-terminal: %q", e)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM district").Scan(&n); err != nil || n != 10 {
		t.Errorf("district rows %d, %v", n, err)
	}
}
