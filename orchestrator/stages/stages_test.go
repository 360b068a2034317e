package stages

import (
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// TestHostileValues: shell and SQL metacharacters in plan values stay
// literal in every generated command. Each command line is parsed by a
// real sh, which must hand the program exactly the planned arguments.
func TestHostileValues(t *testing.T) {
	hostile := "x'; rm -rf / #$(id)`id`\"\\"
	// A download URL holds no space (validation: percent-encode it); the
	// rest of the payload stays.
	planText := strings.NewReplacer("HOSTILE", strings.ReplaceAll(hostile, `\`, `\\`), "URLQUOTED", strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(hostile, " ", "%20"), `\`, `\\`), `"`, `\"`), "QUOTED", strings.ReplaceAll(strings.ReplaceAll(hostile, `\`, `\\`), `"`, `\"`)).Replace(`version: 1
name: hostile
flavor: cockroach
nodes:
  - name: n[1-3]
    addr: 10.9.0.[1-3]
    racks: 3
    store: /data/n
workload:
  - name: w1
binaries:
  database: {url: "https://example.invalid/c?a=URLQUOTED", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
  swap: {url: "https://example.invalid/d$(reboot)", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
start:
  flags: ["--attrs=QUOTED", "; reboot"]
settings:
  cluster:
    kv.snapshot_rebalance.max_rate: "QUOTED"
license:
  organization: "QUOTED"
  key: {env: LIC}
tpcc:
  warehouses: 3
  partitions: 3
  ramp: 1m
  duration: 1m
  extra_flags: ["--note=QUOTED"]
stages: [install, start, init, configure, import, partition, swap, run]
`)
	t.Setenv("LIC", "crl-0-xx")
	p, err := plan.ParsePlan("hostile.yaml", []byte(planText))
	if err != nil {
		t.Fatal(err)
	}
	stages, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, st := range stages {
		for _, s := range st.Steps {
			if len(s.Cmd.Args) == 0 {
				continue
			}
			checkParses(t, s.Cmd)
			if strings.Contains(strings.Join(s.Cmd.Args, " "), hostile) {
				seen++
			}
			for _, a := range s.Cmd.Args {
				if strings.Contains(a, "SET CLUSTER SETTING") && strings.Contains(a, "x'") && !strings.Contains(a, "'x''; rm -rf /") {
					t.Errorf("SQL value not quoted as a literal: %s", a)
				}
			}
		}
	}
	if seen < 5 {
		t.Errorf("the hostile value reached only %d commands; the test plan is not exercising quoting", seen)
	}
}

// checkParses runs `sh -c 'printf ...' ShellJoin(c)` and compares the
// arguments the program would get with c.Args.
func checkParses(t *testing.T, c remote.Cmd) {
	t.Helper()
	line := remote.ShellJoin(remote.Cmd{Args: c.Args})
	probe := "set -- " + line + `; printf '%s\0' "$@"`
	out, err := execSh(probe)
	if err != nil {
		t.Fatalf("sh rejected %s: %v", line, err)
	}
	want := strings.Join(c.Args, "\x00") + "\x00"
	if out != want {
		t.Errorf("sh split the line differently:\n%s\ngot  %q\nwant %q", line, out, want)
	}
}
