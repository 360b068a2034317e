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
