package orchestrator

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// planBudget is how long decoding, validating and compiling any plan of
// at most MaxPlanSize may take (a 100k-warehouse plan takes milliseconds).
const planBudget = 5 * time.Second

// addPlanSeeds adds the shipped plans and every corpus plan as seeds.
func addPlanSeeds(f *testing.F) {
	for _, glob := range []string{"../plans/*.yaml", "testdata/invalid/*.yaml", "testdata/hostile/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
}

// FuzzPlan: decoding, validating and compiling any bytes never panics and
// ends in bounded time; a plan that validates compiles, every command line
// it compiles is one the shell parses, and a search ends.
func FuzzPlan(f *testing.F) {
	f.Setenv("COCKROACH_LICENSE", "crl-0-fuzz")
	f.Setenv("LIC", "crl-0-fuzz")
	f.Setenv("HOSTILE_LICENSE", "crl-0-fuzz")
	addPlanSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, err := ParsePlan("fuzz.yaml", data)
		if err != nil {
			if _, ok := err.(*PlanError); !ok {
				t.Fatalf("not a *PlanError: %v", err)
			}
			return
		}
		stages, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
		if err != nil {
			return // --only and friends are not set; but a flavor gap is no panic
		}
		for _, st := range stages {
			for _, s := range st.Steps {
				_ = remote.ShellJoin(s.Cmd)
			}
			if st.search != nil {
				// The dry run's path: every iteration passes.
				var points []SearchPoint
				for i := 0; ; i++ {
					v, ok := st.search.next(points)
					if !ok {
						break
					}
					if i > 64 {
						t.Fatalf("search %+v does not end", st.search.Search)
					}
					_ = st.search.iteration(v)
					points = append(points, SearchPoint{Value: v, Pass: true})
				}
			}
		}
		if d := time.Since(start); d > planBudget {
			t.Fatalf("plan took %s", d)
		}
	})
}

// FuzzExpandPattern: a host pattern expands to at most maxHosts values,
// or an error, without panicking or building more first.
func FuzzExpandPattern(f *testing.F) {
	for _, s := range []string{"crdb1", "node[08-11]", "10.0.1.[9-11]", "r[1,3-4]", "z[1-2]-n[1-2]", "[0-2]",
		"n[1-", "n]", "n[a-b]", "n[5-1]", "n[1-9999999]", "n[0-9999]x[0-9999]", "a[0-99]b[0-99]c[0-99]",
		"n[-1-3]", "n[9223372036854775807]", "n[0-9223372036854775807]", "n[,]", "n[]", "[[1-2]]", "n[1-2]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		out, err := expandPattern(s)
		if err == nil && (len(out) == 0 || len(out) > maxHosts) {
			t.Fatalf("%q: %d values", s, len(out))
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("%q took %s", s, d)
		}
	})
}
