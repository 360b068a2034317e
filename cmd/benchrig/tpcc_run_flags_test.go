package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestTpccRunWorkloadFlagsCLI loads one warehouse into real PostgreSQL
// with `tpcc import --data-loader=COPY`, then runs `tpcc run` with
// workload's flags as a recipe user types them.
func TestTpccRunWorkloadFlagsCLI(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.CreateDatabase(t, "flags")
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"benchrig", "tpcc", "import", "--data-loader", "COPY", "--warehouses", "1", url}, &out, &errOut); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code := run(ctx, []string{"benchrig", "tpcc", "run", "--warehouses", "1", "--wait=false", "--workers", "2",
		"--duration", "20s", "--display-every", "200ms", "--mix", "newOrder=1,payment=1", "--max-ops", "40",
		"--max-rate", "100", "--method", "noprepare", "--txn-retries=true", "--seed", "1", "--run-seed", "5",
		"--fks", "--split", "--histograms-max-latency", "100s", url}, &out, &errOut)
	if code != 0 && code != exitCheck {
		t.Fatalf("run exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	if !strings.Contains(out.String(), "newOrder") {
		t.Errorf("no newOrder in the output:\n%s", out.String())
	}
	// An explicit --db that the URL contradicts is workload's error.
	if code := run(ctx, []string{"benchrig", "tpcc", "run", "--db", "other", "--duration", "1s", url}, &out, &errOut); code != exitUsage {
		t.Errorf("--db other with URL database flags: exit %d", code)
	}
}
