package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// TestPGStartWaitsForARunningNode runs the start script through sh with
// stand-in programs: a node that runs (pg_ctl status succeeds) but does
// not accept connections yet (pg_isready fails three times) is waited
// for, not reported ready at once, and not started a second time. A
// resumed run meets such a node when the orchestrator was killed while
// pg_ctl -w waited for it: the next node's pg_basebackup then found no
// server (TestKillAndResume).
func TestPGStartWaitsForARunningNode(t *testing.T) {
	bin, dir := t.TempDir(), t.TempDir()
	calls := filepath.Join(dir, "calls")
	fake := map[string]string{
		"pg_ctl": `echo "pg_ctl $*" >>"` + calls + `"; [ "$3" = status ]`,
		"pg_isready": `echo pg_isready >>"` + calls + `"
[ "$(grep -c pg_isready "` + calls + `")" -ge 4 ]`,
	}
	for name, body := range fake {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := postgresFlavor{&plan.Plan{Nodes: []plan.Host{{Name: "db1", Addr: "127.0.0.2", SQLPort: 5432, Store: filepath.Join(dir, "pgdata"), Dir: dir}}}}
	c := f.startCmd(f.p.Nodes[0], bin)
	out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("start script: %v\n%s", err, out)
	}
	got, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	want := "pg_ctl -D " + filepath.Join(dir, "pgdata") + " status\n" + strings.Repeat("pg_isready\n", 4)
	if string(got) != want || !strings.Contains(string(out), "already running") {
		t.Errorf("programs run:\n%s\nwant:\n%s\noutput: %s", got, want, out)
	}
}

// TestCreateDBMadeMeanwhile: a createdb that fails because the database
// appeared after the script looked (an interrupted attempt's createdb was
// still under way, TestKillAndResume) leaves the step done; one that
// fails with the database still absent fails the step.
func TestCreateDBMadeMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		exists string // psql's answer to the second look
		ok     bool
	}{{"made meanwhile", "1", true}, {"still absent", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bin, dir := t.TempDir(), t.TempDir()
			looks := filepath.Join(dir, "looks")
			fake := map[string]string{
				"psql":     `cat >/dev/null; echo x >>"` + looks + `"; [ "$(wc -l <"` + looks + `")" -ge 2 ] && echo "` + tc.exists + `"; exit 0`,
				"createdb": `echo 'createdb: error: database creation failed: ERROR:  duplicate key value violates unique constraint "pg_database_datname_index"' >&2; exit 1`,
			}
			for name, body := range fake {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.Command("sh", "-c", createDB, "sh", bin, "127.0.0.2", "5432", "tpcc").CombinedOutput()
			if (err == nil) != tc.ok {
				t.Errorf("create database: err %v, want ok %v\n%s", err, tc.ok, out)
			}
		})
	}
}
