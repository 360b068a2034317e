package stages_test

import (
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// TestMeasuredRunWindow: every measured run's job, with either driver and
// in every round, names the histogram file it writes (Step.Window: a death
// of that job makes the host incomplete instead of failing the run), and
// no other job does (the allocation's long ramp, imports, the
// partitioning run).
func TestMeasuredRunWindow(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	for _, tc := range []struct {
		name, file string
		edit       func(string) string
		want       []string // host=window of the run stage's jobs
	}{
		{"postgres", "../../plans/local.yaml", nil,
			[]string{"load1=workload1.histogram.ndjson", "load2=workload2.histogram.ndjson"}},
		{"postgres, repeated", "../../plans/local.yaml", func(s string) string { return strings.Replace(s, "tpcc:\n", "tpcc:\n  repeat: 2\n", 1) },
			[]string{"load1=workload1.r1.histogram.ndjson", "load2=workload2.r1.histogram.ndjson", "load1=workload1.r2.histogram.ndjson", "load2=workload2.r2.histogram.ndjson"}},
		{"cockroach, driver workload", "../../plans/tpcc-100k.yaml", withWorkloadDriver, nil},
		{"cockroach, benchrig driver", "../../plans/tpcc-100k.yaml", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := loadPlanText(t, tc.file, tc.edit)
			list, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				for _, rd := range p.Rounds() {
					for i, h := range p.Workload {
						want = append(want, h.Name+"="+plan.HistogramFile(p, i, rd))
					}
				}
			}
			var got []string
			for _, st := range list {
				for _, s := range st.Steps {
					switch {
					case st.Name == "run" && s.Kind == stages.Job && s.JobMode == stages.JobWait:
						got = append(got, s.Host+"="+s.Window)
						if !strings.Contains(strings.Join(s.Cmd.Args, " "), s.Window) {
							t.Errorf("%s: the job does not write its window %s: %s", s.Host, s.Window, s.Display())
						}
					case s.Window != "":
						t.Errorf("stage %s: %s %q has a window", st.Name, s.Host, s.What)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("run jobs' windows %q, want %q", got, want)
			}
		})
	}
}
