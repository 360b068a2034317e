package stages_test

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// TestCompiledBytesBoundsCompile: plan.CompiledBytes, the estimate
// validation refuses big plans by before compiling them, is above what
// Compile allocates, for the shipped plans and for bigger ones of both
// flavors (every node's URL on every workload host's run steps). Measured
// as allocated bytes (deterministic), not time.
func TestCompiledBytesBoundsCompile(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	files, _ := filepath.Glob("../../plans/*.yaml")
	type tc struct{ name, text string }
	var cases []tc
	for _, f := range files {
		cases = append(cases, tc{filepath.Base(f), string(mustRead(t, f))})
	}
	big := strings.NewReplacer(
		"  - name: crdb[01-15]\n    addr: 10.0.2.[11-25]\n    racks: 5\n", "  - name: crdb[001-150]\n    addr: node-with-a-long-name-[001-150].rack.example.com\n    racks: 5\n",
		"  - name: workload1\n", "  - name: w[01-60]\n",
		"  duration: 30m\n", "  duration: 30m\n  repeat: 4\n",
	).Replace(string(mustRead(t, "../../plans/tpcc-10k.yaml")))
	cases = append(cases, tc{"150 nodes, 60 workload hosts, 4 runs", big})
	cases = append(cases, tc{"150 nodes, 6 workload hosts, 4 runs", strings.Replace(big, "w[01-60]", "w[01-06]", 1)})
	cases = append(cases, tc{"300 nodes, 6 workload hosts, 4 runs", strings.Replace(strings.Replace(big, "w[01-60]", "w[01-06]", 1), "[001-150]", "[001-300]", 2)})
	cases = append(cases, tc{"15 nodes, 60 workload hosts, 4 runs", strings.Replace(big, "[001-150]", "[001-015]", 2)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := plan.ParsePlan(c.name, []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			list, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			got, est := after.TotalAlloc-before.TotalAlloc, uint64(p.CompiledBytes())
			steps := 0
			for _, st := range list {
				steps += len(st.Steps)
			}
			t.Logf("%d steps: compiling allocated %d KiB, estimate %d KiB", steps, got>>10, est>>10)
			if got > est {
				t.Errorf("compiling allocated %d KiB, more than the estimate of %d KiB", got>>10, est>>10)
			}
		})
	}
}
