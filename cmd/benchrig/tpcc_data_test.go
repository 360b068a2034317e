package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestMain doubles the test binary as the benchrig CLI when
// BENCHRIG_CLI_HELPER=1, so that a test can SIGKILL a real `tpcc load`
// process mid-way (TestTpccLoadKilledResumed).
func TestMain(m *testing.M) {
	if os.Getenv("BENCHRIG_CLI_HELPER") == "1" {
		args := append([]string{"benchrig"}, strings.Fields(os.Getenv("BENCHRIG_CLI_ARGS"))...)
		os.Exit(run(context.Background(), args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestTpccLoadKilledResumed: init, a load process killed with SIGKILL
// after its first warehouse commits, a resumed load, then check; and a
// broken invariant makes check exit 30.
func TestTpccLoadKilledResumed(t *testing.T) {
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.URL("tpcc") // created by init
	if code, _, stderr := runCLI(t, "tpcc", "init", "--warehouses", "2", url); code != 0 {
		t.Fatalf("init exit %d: %s", code, stderr)
	}

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "BENCHRIG_CLI_HELPER=1",
		"BENCHRIG_CLI_ARGS=tpcc load --warehouses 2 --concurrency 1 "+url)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// With one connection the item table, then warehouse 0, then 1 load
	// in turn; kill as soon as progress shows warehouse 0 committed.
	killed := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var seen strings.Builder
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "load: 1/2 warehouses") {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killed <- seen.String()
				io.Copy(io.Discard, stderr)
				return
			}
		}
		killed <- "EOF before a warehouse committed:\n" + seen.String()
	}()
	var progress string
	select {
	case progress = <-killed:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("load did not report a committed warehouse within 2 minutes")
	}
	werr := cmd.Wait()
	if !strings.Contains(progress, "1/2 warehouses") || werr == nil {
		t.Fatalf("load was not killed mid-way (wait: %v):\n%s", werr, progress)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var marked, stock int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM benchrig_loaded WHERE w_id >= 0), (SELECT count(*) FROM stock)").Scan(&marked, &stock); err != nil {
		t.Fatal(err)
	}
	if marked != 1 || stock != 100000 {
		t.Fatalf("after SIGKILL: %d warehouses marked, %d stock rows; want 1 and 100000 (whole warehouses only)", marked, stock)
	}
	if code, _, errs := runCLI(t, "tpcc", "load", "--warehouses", "3", url); code != exitUsage {
		t.Errorf("load --warehouses 3 of a 2-warehouse database: exit %d, want %d (%s)", code, exitUsage, errs)
	}
	if code, out, _ := runCLI(t, "tpcc", "check", url); code != exitCheck || !strings.Contains(out, "check 0 all warehouses loaded (benchrig_loaded): FAIL") {
		t.Errorf("check of a half-loaded database: exit %d, want %d:\n%s", code, exitCheck, out)
	}

	code, _, errs := runCLI(t, "tpcc", "load", "--warehouses", "2", url)
	if code != 0 || !strings.Contains(errs, "1 warehouses loaded, 1 already loaded") {
		t.Fatalf("resumed load exit %d:\n%s", code, errs)
	}
	code, out, errs := runCLI(t, "tpcc", "check", "--expensive", url)
	if code != 0 || strings.Count(out, ": PASS (") != 13 {
		t.Fatalf("check after resume: exit %d\n%s%s", code, out, errs)
	}

	if _, err := conn.Exec(ctx, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "tpcc", "check", url)
	if code != exitCheck || !strings.Contains(out, "check 1 W_YTD = sum(D_YTD): FAIL (1 violating rows, e.g. 1)") {
		t.Errorf("check of a broken W_YTD: exit %d, want %d\n%s%s", code, exitCheck, out, errs)
	}
}

func TestTpccDataUsage(t *testing.T) {
	for _, args := range [][]string{
		{"tpcc", "load"},
		{"tpcc", "check"},
		{"tpcc", "init", "--warehouses", "2", "--partitions", "3", "postgres://127.0.0.1:1/x"},
		{"tpcc", "init", "--partition-strategy", "random", "postgres://127.0.0.1:1/x"},
		{"tpcc", "load", "--concurrency", "0", "postgres://127.0.0.1:1/x"},
		{"tpcc", "load", "--from", "-1", "postgres://127.0.0.1:1/x"},
		{"tpcc", "load", "--from", "2", "--to", "1", "postgres://127.0.0.1:1/x"},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, stderr)
		}
	}
}

// TestTpccWithoutMeta is the acceptance test of workload's data
// layout, through the CLI on a real PostgreSQL: load 4 warehouses, drop
// benchrig's own tables (as if CockroachDB's workload had loaded the
// database), then `tpcc run` and `tpcc check --expensive` pass; the
// warehouses are w_id 0..3 and the 10 foreign keys exist, validated.
func TestTpccWithoutMeta(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 4 warehouses into a real PostgreSQL")
	}
	s := pgtest.Start(t, pgtest.NoSync())
	url := s.URL("tpcc")
	if code, _, errs := runCLI(t, "tpcc", "init", "--warehouses", "4", url); code != 0 {
		t.Fatalf("init exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "tpcc", "load", "--warehouses", "4", "--concurrency", "2", url); code != 0 || !strings.Contains(errs, "adding the 10 foreign keys") {
		t.Fatalf("load exit %d (want the foreign keys added by default, as workload's --fks):\n%s", code, errs)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP TABLE benchrig_meta, benchrig_loaded"); err != nil {
		t.Fatal(err)
	}
	var lo, hi int
	if err := conn.QueryRow(ctx, "SELECT min(w_id), max(w_id) FROM warehouse").Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	if lo != 0 || hi != 3 {
		t.Errorf("warehouse ids %d..%d, want 0..3 (workload's 0-based layout)", lo, hi)
	}
	rows, err := conn.Query(ctx, `SELECT conrelid::regclass::text || ' -> ' || confrelid::regclass::text FROM pg_constraint
WHERE contype = 'f' AND conparentid = 0 AND convalidated ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	fks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := `"order" -> customer, customer -> district, district -> warehouse, history -> customer, history -> district, ` +
		`new_order -> "order", order_line -> "order", order_line -> stock, stock -> item, stock -> warehouse`
	if got := strings.Join(fks, ", "); got != want {
		t.Errorf("validated foreign keys:\n%s\nwant:\n%s", got, want)
	}

	// C-Load comes from the data seed (init's default 1, workload's
	// default --seed), as the load drew it.
	code, out, errs := runCLI(t, "tpcc", "run", "--warehouses", "4", "--wait", "false", "--workers", "8",
		"--duration", "4s", "--display-every", "2s", url)
	if code != 0 {
		t.Fatalf("run without benchrig_meta: exit %d\n%s%s", code, out, errs)
	}
	if cLoad := "C-Load " + tpcc.MetaForSeed(1, 4, 1).Load.String(); !strings.Contains(out+errs, cLoad) {
		t.Errorf("run did not derive %s from the data seed:\n%s%s", cLoad, out, errs)
	}
	code, out, errs = runCLI(t, "tpcc", "check", "--expensive", "--warehouses", "4", url)
	if code != 0 || strings.Count(out, ": PASS (") != 12 || !strings.Contains(out, "check 0 warehouses 0..W-1 and 100,000 items present: PASS") ||
		!strings.Contains(out, "check 11 count(ORDER) - count(NEW-ORDER) = 2100: SKIP") {
		t.Errorf("check --expensive after the run: exit %d, want 0 with check 0-10 and 12 passing, 11 skipped:\n%s%s", code, out, errs)
	}
	// --warehouses other than the data's is refused up front.
	if code, out, errs := runCLI(t, "tpcc", "run", "--warehouses", "5", "--wait", "false", "--duration", "1s", url); code == 0 ||
		!strings.Contains(out+errs, "database holds 4") {
		t.Errorf("run --warehouses 5 of 4: exit %d\n%s%s", code, out, errs)
	}
}
