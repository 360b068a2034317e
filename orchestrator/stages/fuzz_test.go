package stages

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// planBudget is how long decoding, validating and compiling any plan of
// at most plan.MaxPlanSize may take before the fuzzer calls it a runaway
// (a 100k-warehouse plan takes milliseconds; the budget is generous for a
// loaded machine under -race: a guard, not a speed target).
const planBudget = 30 * time.Second

// addPlanSeeds adds the shipped plans and every corpus plan as seeds.
func addPlanSeeds(f *testing.F) {
	for _, glob := range []string{"../../plans/*.yaml", "../plan/testdata/invalid/*.yaml", "../plan/testdata/hostile/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
}

// FuzzPlan: decoding, normalizing, validating and compiling (the dry
// run's path) any bytes never panics and ends in bounded time and memory;
// a plan that validates compiles within the memory validation estimated,
// every command line it compiles is one the shell parses, and a search
// ends.
func FuzzPlan(f *testing.F) {
	f.Setenv("COCKROACH_LICENSE", "crl-0-fuzz")
	f.Setenv("LIC", "crl-0-fuzz")
	f.Setenv("HOSTILE_LICENSE", "crl-0-fuzz")
	addPlanSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		// Every denied setting allowed, as --allow-setting can: the
		// settings' values still reach the steps only as data.
		p, err := plan.ParsePlan("fuzz.yaml", data, plan.Options{ReadOnly: true})
		if err != nil {
			if _, ok := err.(*plan.PlanError); !ok {
				t.Fatalf("not a *PlanError: %v", err)
			}
			return
		}
		// What validation estimated bounds what compiling allocates
		// (plan.CompiledBytes; a MiB of slack for the runtime's own).
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		stages, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
		runtime.ReadMemStats(&after)
		if d, est := after.TotalAlloc-before.TotalAlloc, uint64(p.CompiledBytes()); d > est+1<<20 {
			t.Fatalf("compiling allocated %d KiB, above the estimate of %d KiB validation bounds", d>>10, est>>10)
		}
		if err != nil {
			return // --only and friends are not set; but a flavor gap is no panic
		}
		for _, st := range stages {
			for _, s := range st.Steps {
				_ = remote.ShellJoin(s.Cmd)
			}
			if st.Search != nil {
				// The dry run's path: every iteration passes.
				var points []SearchPoint
				for i := 0; ; i++ {
					v, ok := st.Search.Next(points)
					if !ok {
						break
					}
					if i > 64 {
						t.Fatalf("search %+v does not end", *st.Search)
					}
					_ = st.Search.Steps(v)
					points = append(points, SearchPoint{Value: v, Pass: true})
				}
			}
		}
		if d := time.Since(start); d > planBudget {
			t.Fatalf("plan took %s", d)
		}
	})
}
