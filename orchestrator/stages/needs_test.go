package stages

import (
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// needsPlan compiles a plan with 3 nodes and 2 workload hosts; tpcc and
// settings are the case's; it returns the preflight check.
func needsPlan(t *testing.T, flavor, tpccYAML, settings string) *Check {
	t.Helper()
	text := `version: 1
name: needs
flavor: ` + flavor + `
nodes:
  - name: db[1-3]
    addr: 10.0.0.[1-3]
    rack: "[0-2]"
    store: /data/db
workload:
  - name: load[1-2]
binaries:
`
	if flavor == "postgres" {
		text += "  database: {host: /usr/lib/postgresql/15/bin}\n"
	} else {
		text += "  database: {url: \"https://example.invalid/cockroach\", sha256: 0000000000000000000000000000000000000000000000000000000000000000}\n"
	}
	text += settings + "tpcc:\n  ramp: 1s\n  duration: 1m\n" + tpccYAML + "stages: [preflight, run]\n"
	p, err := plan.ParsePlan("needs.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	return list[0].Check
}

// TestRunNeeds: what preflight expects each workload host's run step to
// open, and each node to receive, from the flags the run step is given.
func TestRunNeeds(t *testing.T) {
	for _, tc := range []struct {
		name, flavor, tpcc, settings string
		load1                        HostNeed // the wanted Terminals, Conns, OpenFiles, Ulimit, Err (a substring)
		nodes                        map[string]NodeConns
	}{
		{name: "no wait: a connection per worker", flavor: "postgres",
			tpcc:  "  warehouses: 10\n  wait: \"false\"\n  workers: 8\n",
			load1: HostNeed{Terminals: 8, Conns: 8, OpenFiles: 72},
			// Only the primary takes the run.
			nodes: map[string]NodeConns{"db1": {Conns: 16, Max: 100, Setting: "max_connections"}}},
		{name: "--conns and tpcc.ulimit", flavor: "postgres",
			tpcc:  "  warehouses: 10\n  conns: 150\n  ulimit: 4096\n",
			load1: HostNeed{Terminals: 100, Conns: 150, OpenFiles: 214, Ulimit: 4096},
			// The start stage sizes max_connections for the run (pgServerFor).
			nodes: map[string]NodeConns{"db1": {Conns: 300, Max: 305, Setting: "max_connections"}}},
		{name: "max_connections from the settings, too low", flavor: "postgres",
			tpcc:     "  warehouses: 10\n  conns: 150\n",
			settings: "settings:\n  cluster:\n    max_connections: 200\n",
			load1:    HostNeed{Terminals: 100, Conns: 150, OpenFiles: 214},
			nodes:    map[string]NodeConns{"db1": {Conns: 300, Max: 200, Setting: "max_connections"}}},
		{name: "max_connections from the settings", flavor: "postgres",
			tpcc:     "  warehouses: 10\n  conns: 150\n",
			settings: "settings:\n  cluster:\n    max_connections: 400\n",
			load1:    HostNeed{Terminals: 100, Conns: 150, OpenFiles: 214},
			nodes:    map[string]NodeConns{"db1": {Conns: 300, Max: 400, Setting: "max_connections"}}},
		{name: "a sweep needs its largest round", flavor: "postgres",
			tpcc:  "  warehouses: 10\n  wait: \"false\"\n  sweep: {flag: workers, values: [4, 32, 16]}\n",
			load1: HostNeed{Terminals: 32, Conns: 32, OpenFiles: 96},
			nodes: map[string]NodeConns{"db1": {Conns: 64, Max: 100, Setting: "max_connections"}}},
		{name: "cockroach: partitions on their racks' nodes", flavor: "cockroach",
			tpcc:  "  warehouses: 30\n  partitions: 3\n  conns: 30\n",
			load1: HostNeed{Terminals: 200, Conns: 30, OpenFiles: 94},
			// Up to v24.x every workload host gets every node's URL in
			// node order (the recipe's addrs file; URL j serves partition
			// j % P) and opens its connections evenly over them: 10 per
			// node from each of load1 and load2.
			nodes: map[string]NodeConns{"db1": {Conns: 20}, "db2": {Conns: 20}, "db3": {Conns: 20}}},
		{name: "cockroach: the gateway limit", flavor: "cockroach",
			tpcc:     "  warehouses: 30\n  wait: \"false\"\n  workers: 60\n",
			settings: "settings:\n  cluster:\n    server.max_connections_per_gateway: 10\n",
			load1:    HostNeed{Terminals: 60, Conns: 60, OpenFiles: 124},
			nodes:    map[string]NodeConns{"db1": {Conns: 40, Max: 10, Setting: "server.max_connections_per_gateway"}, "db2": {Conns: 40, Max: 10, Setting: "server.max_connections_per_gateway"}, "db3": {Conns: 40, Max: 10, Setting: "server.max_connections_per_gateway"}}},
		{name: "crud: a connection per goroutine", flavor: "postgres",
			tpcc:     "  warehouses: 1\n",
			settings: "benchmark: crud\ncrud:\n  goroutines: 60\n",
			load1:    HostNeed{Terminals: 60, Conns: 60, OpenFiles: 124},
			nodes:    map[string]NodeConns{"db1": {Conns: 120, Max: 125, Setting: "max_connections"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := needsPlan(t, tc.flavor, tc.tpcc, tc.settings)
			got := c.Needs["load1"]
			if tc.load1.Err != "" {
				if !strings.Contains(got.Err, tc.load1.Err) {
					t.Errorf("load1: error %q, want %q", got.Err, tc.load1.Err)
				}
			} else if got != tc.load1 {
				t.Errorf("load1 needs %+v, want %+v", got, tc.load1)
			}
			if len(c.Conns) != len(tc.nodes) {
				t.Errorf("nodes %+v, want %+v", c.Conns, tc.nodes)
			}
			for n, want := range tc.nodes {
				got := c.Conns[n]
				got.Limit, got.Step = "", ""
				if got != want {
					t.Errorf("%s: %+v, want %+v", n, got, want)
				}
			}
		})
	}
}

// TestJudgeOpenFiles: the limit the run step will get against what it
// needs, and the fix a failure suggests.
func TestJudgeOpenFiles(t *testing.T) {
	need := HostNeed{Terminals: 20000, Conns: 40000, OpenFiles: 40064}
	withUlimit := need
	withUlimit.Ulimit = 200500
	lowUlimit := need
	lowUlimit.Ulimit = 20000
	for _, tc := range []struct {
		name         string
		need         HostNeed
		kv           map[string]string
		nofile, fail string // substrings; fail "" must not fail
	}{
		{"hard limit is what Go gives the driver", need, map[string]string{"nofile_hard": "1048576"}, "need 40064, have 1048576 (hard limit)", ""},
		{"unlimited", need, map[string]string{"nofile_hard": "unlimited"}, "have unlimited", ""},
		{"hard limit too low", need, map[string]string{"nofile_hard": "4096"},
			"(too low)", "open-files limit 4096 (hard limit) is below the 40064 the run needs for 40000 connections: raise the hard limit to at least 40064"},
		{"tpcc.ulimit raises it", withUlimit, map[string]string{"nofile_hard": "1048576", "nofile_ok": "1"}, "have 200500 (tpcc.ulimit)", ""},
		{"tpcc.ulimit below the need", lowUlimit, map[string]string{"nofile_hard": "1048576", "nofile_ok": "1"},
			"have 20000 (tpcc.ulimit) (too low)", "set tpcc.ulimit: 40064, or lower tpcc.conns"},
		{"tpcc.ulimit above the hard limit: said by the raise check", withUlimit, map[string]string{"nofile_hard": "65536", "nofile_ok": "0"}, "above hard limit 65536", ""},
		{"no answer", need, map[string]string{}, "limit unknown", ""},
		{"refused configuration", HostNeed{Err: "tpcc run: --workers 5 with --wait"}, map[string]string{"nofile_hard": "1024"}, "1024", "the driver refuses the run step's configuration: tpcc run: --workers 5"},
	} {
		nofile, _, fail := judgeOpenFiles(tc.need, tc.kv)
		if !strings.Contains(nofile, tc.nofile) || (tc.fail == "") != (fail == "") || !strings.Contains(fail, tc.fail) {
			t.Errorf("%s: cell %q, failure %q; want %q, %q", tc.name, nofile, fail, tc.nofile, tc.fail)
		}
	}
}

func TestJudgeConns(t *testing.T) {
	for _, tc := range []struct {
		nc         NodeConns
		cell, fail string
	}{
		{NodeConns{Conns: 5000}, "gets 5000", ""},
		{NodeConns{Conns: 100, Max: 100, Setting: "max_connections"}, "gets 100 of 100", ""},
		{NodeConns{Conns: 300, Max: 100, Setting: "max_connections"}, "gets 300 of 100 (too many)",
			"the run opens 300 connections to this node, max_connections allows 100: set max_connections: 300 (or more) under settings.cluster, or lower tpcc.conns"},
	} {
		cell, fail := judgeConns(tc.nc)
		if cell != tc.cell || fail != tc.fail {
			t.Errorf("%+v: %q, %q; want %q, %q", tc.nc, cell, fail, tc.cell, tc.fail)
		}
	}
}
