package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/compare"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestCheckRefusesIncomplete: a run (or a baseline) whose measured run
// died on a host is refused with an *IncompleteError naming the host,
// its reason and coverage and the way to measure again, before any
// threshold, whether the figures would pass or fail; a complete run is
// checked as before.
func TestCheckRefusesIncomplete(t *testing.T) {
	dead := result.IncompleteHost{Host: "load2", File: "results/load2/workload2.histogram.ndjson", Reason: "killed (SIGKILL)",
		CoveredSeconds: 30, WindowSeconds: 60, CoveredPercent: 50}
	mark := func(r *compare.Run, round int) *compare.Run {
		if round < 0 {
			r.Report.Result.Incomplete = []result.IncompleteHost{dead}
		} else {
			r.Report.Rounds[round].Result.Incomplete = []result.IncompleteHost{dead}
		}
		return r
	}
	for _, tc := range []struct {
		name     string
		run      func() *compare.Run
		th       Thresholds
		baseline func() *compare.Run
		want     string // "": checked as usual (passes)
	}{
		{"complete", func() *compare.Run { return load(t, "single") }, Thresholds{MinTpmC: 1}, nil, ""},
		{"single run", func() *compare.Run { return mark(load(t, "single"), -1) }, Thresholds{MinTpmC: 1},
			nil, "load2 killed (SIGKILL), covered 30.0 s of the 60.0 s window (50.0%)"},
		{"no threshold it would miss either", func() *compare.Run { return mark(load(t, "single"), -1) }, Thresholds{MinTpmC: 1e9},
			nil, "is INCOMPLETE, not checked"},
		{"one repeat of four", func() *compare.Run { return mark(load(t, "runA"), 2) }, Thresholds{MinTpmC: 1},
			nil, "(round "},
		{"the baseline", func() *compare.Run { return load(t, "runB") }, Thresholds{MaxRegressionPercent: 50},
			func() *compare.Run { return mark(load(t, "runA"), 0) }, "measure again with: benchrig resume --from run ../compare/testdata/runA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base *compare.Run
			if tc.baseline != nil {
				base = tc.baseline()
			}
			err := Check(tc.run(), tc.th, base)
			var ie *IncompleteError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("a complete run: %v", err)
			case tc.want != "" && !errors.As(err, &ie):
				t.Fatalf("err = %v, want an IncompleteError", err)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("%q lacks %q", err, tc.want)
			}
		})
	}
}
