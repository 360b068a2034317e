package e2e_test

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// scaleNodes is the cluster TestPostgresTwelveNodes starts: more standbys
// than PostgreSQL's default max_wal_senders (10) serves, and more than
// the start stage copies at once (8), so both the sizing and the bound
// are exercised.
const scaleNodes = 12

// newScaleE2E starts a lab of scaleNodes PostgreSQL nodes (4 racks) and
// one workload host (or takes the lab of an earlier one, on) and writes a
// plan of the stages given, with settings (YAML lines, may be empty).
func newScaleE2E(t *testing.T, on *e2e.Env, stages, settings string) *e2e.Env {
	e := e2e.NewBase(t)
	if on != nil {
		e.Lab = on.Lab
	} else {
		e.Lab = sshtest.StartT(t, scaleNodes+1)
	}
	u, err := user.Lookup(e.Lab.User())
	if err != nil {
		t.Fatal(err)
	}
	e.Home = u.HomeDir
	e.Prefix = e2e.NewPrefix("benchrig-e2e")
	var addrs, names []string
	for i := 1; i <= scaleNodes; i++ {
		addrs = append(addrs, fmt.Sprintf("127.0.0.%d", i+1))
		names = append(names, fmt.Sprintf("db%d", i))
	}
	e.Port = e2e.FreePort(t, addrs...)
	cfg := filepath.Join(e.Lab.Dir(), "ssh_config")
	if err := e.Lab.WriteSSHConfig(cfg, "lab-", append(names, "load1")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plan := fmt.Sprintf(`version: 1
name: e2e
flavor: postgres
ssh:
  config: %s
  known_hosts: %s
nodes:
  - name: db[1-%d]
    ssh: lab-db[1-%d]
    addr: 127.0.0.[2-%d]
    sql_port: %d
    racks: 4
    dir: %s/db[1-%d]
workload:
  - name: load1
    ssh: lab-load1
    dir: %s/load1
binaries:
  database: {host: %s}
%spreflight:
  fio_size: "0"
tpcc:
  warehouses: 1
  ramp: 1s
  duration: 5s
stages: [%s]
`, cfg, e.Lab.KnownHostsPath(), scaleNodes, scaleNodes, scaleNodes+1, e.Port, e.Prefix, scaleNodes, e.Prefix, e.PGBin, settings, stages)
	e.Plan = filepath.Join(dir, "e2e.yaml")
	if err := os.WriteFile(e.Plan, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Runs = filepath.Join(dir, "runs")
	t.Cleanup(func() {
		for _, n := range names {
			_ = e.AsLoginUser(e.PGBin+"/pg_ctl", "-D", filepath.Join(e.Home, e.Prefix, n, "pgdata"), "-m", "immediate", "stop").Run()
		}
		if !t.Failed() {
			_ = e.AsLoginUser("rm", "-rf", filepath.Join(e.Home, e.Prefix)).Run()
		} else {
			t.Logf("orchestrator output:\n%s", e2e.LastN(e.Logs.String(), 80))
		}
	})
	return e
}

// TestPostgresTwelveNodes starts a 12-node PostgreSQL cluster (a primary
// and 11 streaming standbys) through real sshd. First with the plan
// setting max_wal_senders to PostgreSQL's default 10: preflight refuses
// it on the primary, saying why, and nothing starts. Then without: the
// start stage sizes the primary (max_wal_senders 19: 11 standbys
// streaming, 8 copying at once with 2 each) before any standby connects,
// starts the primary alone, then the standbys in parallel, at most 8 at a
// time; init waits until all 11 stream; teardown --wipe removes it all.
func TestPostgresTwelveNodes(t *testing.T) {
	t.Parallel()
	bad := newScaleE2E(t, nil, "preflight, install, start, init", "settings:\n  cluster:\n    max_wal_senders: 10\n")
	bad.Start("run", "--runs-dir", bad.Runs, bad.Plan)
	if code := bad.Wait(3 * time.Minute); code != e2e.ExitCheck {
		t.Fatalf("a plan whose max_wal_senders cannot serve its standbys: exit %d, want %d\n%s", code, e2e.ExitCheck, e2e.LastN(bad.Logs.String(), 30))
	}
	out := bad.Logs.String()
	if !strings.Contains(out, "FAIL: max_wal_senders 10 (settings) is below the 19 the start stage needs (11 standbys streaming, 8 copying at once with 2 each)") ||
		!strings.Contains(out, "preflight failed on 1 of 13 hosts") || strings.Contains(out, "== stage install") {
		t.Errorf("preflight does not refuse the plan, or not before install:\n%s", e2e.LastN(out, 30))
	}
	if _, err := os.Stat(filepath.Join(bad.Home, bad.Prefix, "db1", "pgdata")); !os.IsNotExist(err) {
		t.Errorf("a refused plan made the primary's data directory: %v", err)
	}

	e := newScaleE2E(t, bad, "preflight, install, start, init", "")
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("benchrig run of %d nodes exited %d", scaleNodes, code)
	}
	psql := func(sql string) string {
		out, err := e.AsLoginUser(e.PGBin+"/psql", "-X", "-tAq", "-h", "127.0.0.2", "-p", fmt.Sprint(e.Port), "-d", "postgres", "-c", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %s: %v\n%s", sql, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := psql("SHOW max_wal_senders"); got != "19" {
		t.Errorf("the primary runs with max_wal_senders %s, want 19", got)
	}
	if got := psql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"); got != fmt.Sprint(scaleNodes-1) {
		t.Errorf("%s standbys stream, want %d", got, scaleNodes-1)
	}
	// The start stage's order, from the run's state: the primary done
	// before any standby began; standbys overlapping, never more than 8.
	st, err := rundir.ReadState(filepath.Join(e.RunDir(), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var start rundir.StageState
	for _, s := range st.Stages {
		if s.Name == "start" {
			start = s
		}
	}
	if len(start.Hosts) != scaleNodes {
		t.Fatalf("start stage of %d hosts: %+v", len(start.Hosts), start)
	}
	type edge struct {
		at time.Time
		d  int
	}
	var edges []edge
	for _, h := range start.Hosts {
		if h.Started == nil || h.Finished == nil {
			t.Fatalf("%s: no start or finish time in the state", h.Host)
		}
		if h.Host == "db1" {
			continue
		}
		if h.Started.Before(*start.Hosts[0].Finished) {
			t.Errorf("standby %s began at %s, before the primary was up (%s)", h.Host, h.Started, start.Hosts[0].Finished)
		}
		edges = append(edges, edge{*h.Started, 1}, edge{*h.Finished, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if !edges[i].at.Equal(edges[j].at) {
			return edges[i].at.Before(edges[j].at)
		}
		return edges[i].d < edges[j].d // an end before a start at the same instant
	})
	now, most := 0, 0
	for _, x := range edges {
		now += x.d
		most = max(most, now)
	}
	if most < 2 || most > 8 {
		t.Errorf("at most %d standbys started at once, want 2 to 8 (in parallel, bounded)", most)
	}
	out2, err := runToEnd(e, "teardown", e.Plan, "--wipe", "--yes")
	if err != nil {
		t.Fatalf("teardown --wipe: %v\n%s", err, e2e.LastN(out2, 30))
	}
	for _, h := range []string{"db1", "db12", "load1"} {
		if _, err := os.Stat(filepath.Join(e.Home, e.Prefix, h)); !os.IsNotExist(err) {
			t.Errorf("%s's work directory is still there after teardown --wipe: %v", h, err)
		}
	}
}

// runToEnd runs the built benchrig in the background (Env.Start) and waits
// for its end (at most 3 minutes), returning what it printed; unlike
// Env.RunBenchrig, its output stays in e.Logs for the test's failure log.
func runToEnd(e *e2e.Env, args ...string) (string, error) {
	e.Start(args...)
	code := e.Wait(3 * time.Minute)
	if code != 0 {
		return e.Logs.String(), fmt.Errorf("exit %d", code)
	}
	return e.Logs.String(), nil
}
