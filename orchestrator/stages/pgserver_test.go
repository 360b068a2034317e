package stages

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// pgPlan is a postgres plan of n nodes in racks of 3 and 2 workload
// hosts, with extra YAML (settings, ssh) and the stages given.
func pgPlan(t *testing.T, n int, extra, stages string) *plan.Plan {
	t.Helper()
	text := fmt.Sprintf(`version: 1
name: pgscale
flavor: postgres
nodes:
  - name: db[1-%d]
    addr: 10.0.0.[1-%d]
    rack: "[0-%d]"
workload:
  - name: load[1-2]
binaries:
  database: {host: /usr/lib/postgresql/15/bin}
  swap: {host: /usr/lib/postgresql/16/bin}
%stpcc:
  warehouses: 10
  ramp: 1s
  duration: 1m
stages: [%s]
`, n, n, n-1, extra, stages)
	p, err := plan.ParsePlan("pgscale.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPGServerSizing: what every node starts with, and what preflight
// refuses in the plan's own settings, for clusters of 1 to 81 nodes.
func TestPGServerSizing(t *testing.T) {
	for _, tc := range []struct {
		name     string
		nodes    int
		extra    string
		conns    int
		limit    int
		want     string // the settings' lines, joined by "; "
		refusals []string
	}{
		{name: "one node: the defaults", nodes: 1, limit: 1,
			want: "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100"},
		{name: "three nodes fit the defaults", nodes: 3, conns: 20, limit: 2,
			want: "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100; wal_keep_size = 64"},
		{name: "12 nodes: 11 standbys and 8 copies at once", nodes: 12, limit: 8,
			want: "max_wal_senders = 19; max_replication_slots = 10; max_connections = 100; wal_keep_size = 256"},
		{name: "the 100k shape: 81 nodes", nodes: 81, conns: 500, limit: 8,
			want: "max_wal_senders = 88; max_replication_slots = 10; max_connections = 505; wal_keep_size = 256"},
		{name: "ssh.concurrency bounds the copies", nodes: 81, extra: "ssh:\n  concurrency: 3\n", limit: 3,
			want: "max_wal_senders = 83; max_replication_slots = 10; max_connections = 100; wal_keep_size = 96"},
		{name: "the plan's values, enough", nodes: 12, extra: "settings:\n  cluster:\n    max_wal_senders: 40\n    max_replication_slots: 12\n    max_connections: 300\n", limit: 8,
			want: "max_wal_senders = 40; max_replication_slots = 12; max_connections = 300; wal_keep_size = 256"},
		{name: "max_wal_senders below the standbys", nodes: 12, extra: "settings:\n  cluster:\n    max_wal_senders: 10\n", limit: 8,
			want:     "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100; wal_keep_size = 256",
			refusals: []string{"max_wal_senders 10 (settings) is below the 19 the start stage needs (11 standbys streaming, 8 copying at once with 2 each): set max_wal_senders: 19 or more"}},
		{name: "too few slots for the copies", nodes: 12, extra: "settings:\n  cluster:\n    max_replication_slots: 2\n", limit: 8,
			want:     "max_wal_senders = 19; max_replication_slots = 2; max_connections = 100; wal_keep_size = 256",
			refusals: []string{"max_replication_slots 2 (settings) is below the 8 the start stage needs"}},
		{name: "not a number", nodes: 3, extra: "settings:\n  cluster:\n    max_wal_senders: lots\n", limit: 2,
			want:     "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100; wal_keep_size = 64",
			refusals: []string{`max_wal_senders "lots" (settings): PostgreSQL refuses it at start`}},
		{name: "max_connections not above the reserve", nodes: 3, extra: "settings:\n  cluster:\n    max_connections: 3\n", limit: 2,
			want:     "max_wal_senders = 10; max_replication_slots = 10; max_connections = 3; wal_keep_size = 64",
			refusals: []string{"max_connections 3 is not above the 3 reserved connections"}},
		{name: "too many server processes", nodes: 3, extra: "settings:\n  cluster:\n    max_connections: 262100\n    max_worker_processes: 100\n", limit: 2,
			want:     "max_wal_senders = 10; max_replication_slots = 10; max_connections = 262100; wal_keep_size = 64",
			refusals: []string{"is 262214, above PostgreSQL's 262143 server processes"}},
		{name: "wal_level minimal", nodes: 3, extra: "settings:\n  cluster:\n    wal_level: minimal\n", limit: 2,
			want:     "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100; wal_keep_size = 64",
			refusals: []string{"wal_level minimal (settings): PostgreSQL refuses to start with max_wal_senders 10 above 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := pgServerFor(pgPlan(t, tc.nodes, tc.extra, "start"), tc.conns)
			var lines []string
			for _, s := range sv.Settings {
				lines = append(lines, s.Line())
			}
			if got := strings.Join(lines, "; "); got != tc.want {
				t.Errorf("settings %s, want %s", got, tc.want)
			}
			if sv.Limit != tc.limit || sv.Standbys != tc.nodes-1 {
				t.Errorf("%d standbys %d at a time, want %d, %d", sv.Standbys, sv.Limit, tc.nodes-1, tc.limit)
			}
			if len(sv.Refusals) != len(tc.refusals) {
				t.Fatalf("refusals %q, want %q", sv.Refusals, tc.refusals)
			}
			for i, r := range tc.refusals {
				if !strings.Contains(sv.Refusals[i], r) {
					t.Errorf("refusal %q, want it to say %q", sv.Refusals[i], r)
				}
			}
		})
	}
}

// TestPGStartStage: the compiled start stage starts the primary alone,
// then the standbys in one phase bounded by the sizing's limit, every
// node with the same benchrig.conf lines; preflight fails the primary on
// a refusal, whatever the host answers.
func TestPGStartStage(t *testing.T) {
	p := pgPlan(t, 12, "settings:\n  cluster:\n    max_wal_senders: 10\n", "preflight, start, swap")
	list, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	pf, start, swap := list[0], list[1], list[2]
	if start.Serial || start.Limit != 8 {
		t.Errorf("start: serial %v, limit %d; want parallel, 8", start.Serial, start.Limit)
	}
	for i, s := range start.Steps {
		if want := min(i, 1); s.Phase != want {
			t.Errorf("start step %d (%s) in phase %d, want %d", i, s.Host, s.Phase, want)
		}
		if got := strings.Join(s.Cmd.Args[12:], "; "); got != "max_wal_senders = 10; max_replication_slots = 10; max_connections = 100; wal_keep_size = 256" {
			t.Errorf("%s starts with %s", s.Host, got)
		}
	}
	if len(start.Notes) != 1 || !strings.Contains(start.Notes[0], "the primary first, then its 11 standbys, 8 at a time") {
		t.Errorf("start notes: %q", start.Notes)
	}
	// The swap restarts with the same lines (its start steps).
	for _, s := range swap.Steps {
		if s.What == "start node on the swap programs" && s.Cmd.Args[12] != "max_wal_senders = 10" {
			t.Errorf("swap restarts %s with %q", s.Host, s.Cmd.Args[12:])
		}
	}
	if !strings.Contains(pf.Check.String(), "fails db1: max_wal_senders 10 (settings) is below the 19") {
		t.Errorf("the dry-run's check does not say the refusal: %s", pf.Check)
	}
	var answers []ProbeResult
	for _, h := range pf.Check.Hosts {
		answers = append(answers, ProbeResult{Host: h, Probe: "preflight", Stdout: "os=Linux\narch=x86_64\nwritable=1\nfree_kb=99999999\nnofile_hard=1048576\n"})
	}
	table, err := pf.Check.Judge(answers)
	var pe *PreflightError
	if !errors.As(err, &pe) || pe.Failed != 1 {
		t.Fatalf("want the primary failed, got %v\n%s", err, table)
	}
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "db1 ") && !strings.Contains(l, "FAIL: max_wal_senders 10 (settings) is below the 19 the start stage needs") {
			t.Errorf("primary's row: %s", l)
		}
	}
}
