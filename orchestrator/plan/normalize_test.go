package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// base is a small valid plan; tests append to it or replace its lines.
const base = `version: 1
name: t
flavor: FLAVOR
nodes:
  - name: n[1-3]
    addr: 10.0.0.[1-3]
workload:
  - name: w[1-2]
binaries:
  database: BINARY
tpcc:
  warehouses: 10
  duration: 1m
stages: [install, start, run]
`

func planText(flavor string, edits ...string) string {
	bin := "{url: https://example.invalid/c, sha256: 0000000000000000000000000000000000000000000000000000000000000000}"
	if flavor == Postgres {
		bin = "{host: /usr/lib/postgresql/16/bin}"
	}
	s := strings.NewReplacer("FLAVOR", flavor, "BINARY", bin).Replace(base)
	for i := 0; i+1 < len(edits); i += 2 {
		if edits[i] == "" {
			s += edits[i+1]
			continue
		}
		if !strings.Contains(s, edits[i]) {
			panic("no " + edits[i])
		}
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	return s
}

func decoded(t *testing.T, text string) *Plan {
	t.Helper()
	p, err := Decode("/plans/t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNormalize: the defaults, one row each, read from the normalized
// plan; the decoded plan keeps what was written.
func TestNormalize(t *testing.T) {
	for _, tt := range []struct {
		name   string
		flavor string
		edits  []string
		got    func(p *Plan) any
		want   any
	}{
		{"ssh port", Cockroach, nil, func(p *Plan) any { return p.SSH.Port }, 22},
		{"ssh concurrency", Cockroach, nil, func(p *Plan) any { return p.SSH.Concurrency }, 8},
		{"ssh paths are the plan's", Cockroach, []string{"", "ssh: {known_hosts: kh, identity_file: /abs/id}\n"},
			func(p *Plan) any { return p.SSH.KnownHosts + " " + p.SSH.IdentityFile }, "/plans/kh /abs/id"},
		{"cockroach install path", Cockroach, nil, func(p *Plan) any { return p.Binaries.InstallPath }, "/usr/local/bin/cockroach"},
		{"postgres has none", Postgres, nil, func(p *Plan) any { return p.Binaries.InstallPath }, ""},
		{"hosts expanded", Cockroach, nil, func(p *Plan) any { return words(len(p.Nodes), p.Nodes[2].Name, p.Nodes[2].Addr, len(p.Workload)) }, "3 n3 10.0.0.3 2"},
		{"cockroach ports", Cockroach, nil, func(p *Plan) any { return fmt.Sprint(p.Nodes[0].SQLPort, p.Nodes[0].HTTPPort) }, "26257 8080"},
		{"postgres ports and store", Postgres, nil, func(p *Plan) any { return words(p.Nodes[0].SQLPort, p.Nodes[0].HTTPPort, p.Nodes[0].Store) }, "5432 0 benchrig/pgdata"},
		{"work directory", Cockroach, nil, func(p *Plan) any { return p.Workload[1].Dir }, "benchrig"},
		{"ssh host is the name", Cockroach, nil, func(p *Plan) any { return p.Workload[0].SSH }, "w1"},
		{"no rack", Cockroach, nil, func(p *Plan) any { return p.Nodes[0].Rack }, -1},
		{"racks spread", Cockroach, []string{"    addr: 10.0.0.[1-3]\n", "    addr: 10.0.0.[1-3]\n    racks: 3\n"}, func(p *Plan) any { return p.Nodes[2].Rack }, 2},
		{"benchmark", Cockroach, nil, func(p *Plan) any { return p.Benchmark }, "tpcc"},
		{"database", Cockroach, nil, func(p *Plan) any { return p.TPCC.Database }, "tpcc"},
		{"histograms", Cockroach, nil, func(p *Plan) any { return p.TPCC.Histograms }, "workload{n}.histogram.ndjson"},
		{"partition run", Cockroach, nil, func(p *Plan) any { return p.TPCC.PartitionRun.Std() }, time.Minute},
		{"partitions p mod N", Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 3\n", "    addr: 10.0.0.[1-3]\n", "    addr: 10.0.0.[1-3]\n    racks: 3\n"},
			func(p *Plan) any { return fmt.Sprint(p.Workload[0].Partitions, p.Workload[1].Partitions) }, "[0 2] [1]"},
		{"pinned partitions kept", Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 3\n", "  - name: w[1-2]\n", "  - name: w1\n    partitions: [2, 0, 1]\n"},
			func(p *Plan) any { return fmt.Sprint(p.Workload[0].Partitions, p.Workload[0].Pinned) }, "[2 0 1] true"},
		{"crud", Cockroach, []string{"", "benchmark: crud\n"},
			func(p *Plan) any {
				c := p.CRUD
				return words(c.Goroutines, c.Records, c.SelectRepeat, c.ManyRepeat, c.Table)
			}, "100 400 10 300 crud_bench"},
		{"preflight", Cockroach, nil, func(p *Plan) any {
			f := p.Preflight
			return words(f.FioSize, f.FioRuntime, f.MinFreeGB, f.MaxClockOffset, f.MinReadIOPS)
		}, "256M 10s 1 1s 5000"},
		{"settings: preset, then the plan's in place", Cockroach, []string{"", "settings:\n  preset: crdb-v20.1-tpcc-large\n  cluster: {kv.range_merge.queue_enabled: true, a.b: 1}\n"},
			func(p *Plan) any {
				s := p.Settings.Ordered()
				return words(s[len(s)-1], len(s) > 2)
			}, "{a.b 1} true"},
		{"a bad pattern leaves its hosts out", Cockroach, []string{"name: n[1-3]", "name: n[3-1]"}, func(p *Plan) any { return len(p.Nodes) }, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := decoded(t, planText(tt.flavor, tt.edits...))
			before := snapshot(t, raw)
			n := Normalize(raw)
			if got := tt.got(n); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if snapshot(t, raw) != before || raw.Nodes != nil {
				t.Error("Normalize changed the decoded plan")
			}
		})
	}
}

// TestNormalizeLeavesItsInput: every plan under plans/, decoded, is the
// same value after Normalize; the normalized plan answers positions.
func TestNormalizeLeavesItsInput(t *testing.T) {
	for _, f := range shippedPlans(t) {
		data := mustRead(t, f)
		raw, err := Decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, raw)
		n := Normalize(raw)
		if snapshot(t, raw) != before {
			t.Errorf("%s: Normalize changed its input", f)
		}
		if n.node(&n.TPCC) == nil || n.node(&n.Stages) == nil {
			t.Errorf("%s: the normalized plan lost its positions", f)
		}
	}
}

// TestValidate: one problem each, found on a normalized plan; Validate
// changes nothing (a second call sees the same plan and says the same).
func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		flavor string
		edits  []string
		want   string // "" for valid
	}{
		{"valid cockroach", Cockroach, nil, ""},
		{"valid postgres", Postgres, nil, ""},
		{"version", Cockroach, []string{"version: 1", "version: 2"}, "t.yaml:1:10: version: want 1, got 2"},
		{"flavor", "mysql", nil, "flavor: want"},
		{"port", Cockroach, []string{"", "ssh: {port: 70000}\n"}, "ssh.port: 70000 is not a port"},
		{"pattern", Cockroach, []string{"name: n[1-3]", "name: n[3-1]"}, "nodes[0].name: pattern \"n[3-1]\": range 3-1 runs backwards"},
		{"duplicate host", Cockroach, []string{"  - name: w[1-2]\n", "  - name: n1\n"}, "host n1: the name is used twice"},
		{"warehouses", Cockroach, []string{"warehouses: 10", "warehouses: 0"}, "tpcc.warehouses: want a positive number"},
		{"partitions without racks", Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 3\n"}, "partitions are pinned to racks, but no node has a rack"},
		{"partition twice", Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  partitions: 3\n", "    addr: 10.0.0.[1-3]\n", "    addr: 10.0.0.[1-3]\n    racks: 3\n",
			"  - name: w[1-2]\n", "  - name: w1\n    partitions: [0, 1]\n  - name: w2\n    partitions: [1, 2]\n"}, "partition 1 is also assigned to w1"},
		{"stage order", Cockroach, []string{"[install, start, run]", "[start, install, run]"}, "install must come before start"},
		{"crud stages", Cockroach, []string{"", "benchmark: crud\n", "[install, start, run]", "[install, import, run]"}, "import is a TPC-C stage"},
		{"licence inline", Cockroach, []string{"", "license: {organization: o, key: {value: crl-secret}}\n"}, "a licence key is a secret"},
		{"setting name", Postgres, []string{"", "settings: {cluster: {\"x; DROP\": 1}}\n"}, "is not a setting name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := Decode("/plans/t.yaml", []byte(planText(tt.flavor, tt.edits...)))
			if err != nil {
				t.Fatal(err)
			}
			n := Normalize(raw)
			before := snapshot(t, n)
			err = Validate(n)
			if snapshot(t, n) != before {
				t.Fatal("Validate changed the plan")
			}
			if again := Validate(n); fmt.Sprint(again) != fmt.Sprint(err) {
				t.Errorf("a second Validate says %v, the first %v", again, err)
			}
			var pe *PlanError
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("want no problem, got %v", err)
			case tt.want != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("want a problem %q, got %v", tt.want, err)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshot is everything a plan value says, to compare two values.
func snapshot(t *testing.T, p *Plan) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + fmt.Sprint(p.Settings.Ordered())
}

// words is its arguments separated by spaces.
func words(a ...any) string { return strings.TrimSpace(fmt.Sprintln(a...)) }
