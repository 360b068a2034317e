package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestReportShowsBothEfficiencies: with workload's output kept beside a
// host's histograms (driver: workload), the report shows workload's own
// final line, named, beside tpcc merge's efficiency: the single-host
// pages publish the former (12.86 per warehouse), the merge the latter
// (12.605 per warehouse of the run).
func TestReportShowsBothEfficiencies(t *testing.T) {
	dir, p, st := fakeRun(t)
	hist := filepath.Join(dir, "results", "load1", "workload1.histogram.ndjson")
	out := "Audit check 9.2.1.7: PASS\n\n" + histogram.FinalHeader + "\n   60.0s       60.0 233.3%     20.0     20.0     21.0     22.0     23.0     24.0\n"
	write(t, result.WorkloadOutputFileFor(hist), out)
	md, err := Write(dir, p, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Result == nil || len(r.Result.WorkloadFinal) != 1 {
		t.Fatalf("workload final lines %+v", r.Result)
	}
	if l := r.Result.WorkloadFinal[0]; l.Host != "load1" || l.TpmC != 60 || l.Efficiency != 233.3 || l.P90 != 21 {
		t.Errorf("final line %+v, want load1's 60 tpmC, 233.3 %%", l)
	}
	checkReportSchema(t, data)
	got, _ := os.ReadFile(md)
	for _, want := range []string{"Efficiency is tpmC / (12.605 × warehouses)", "workload's own final line per host", "| load1 | 60.0 | 60.0 | 233.3 % | 21.0 | 22.0 |"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestReportSaysWhatTheDataWasGeneratedWith: the 100k plan IMPORTs (the
// nodes generate C_LAST with C = 0) and runs workload's profile (C-Run
// 103): delta 103, valid; the 10-warehouse plan loads with workload init
// (C-Load 103 = C-Run): delta 0, outside clause 2.1.6.1.
func TestReportSaysWhatTheDataWasGeneratedWith(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	for _, tc := range []struct {
		plan  string
		cLoad int
		valid bool
	}{{"tpcc-100k", 0, true}, {"tpcc-10", 103, false}, {"tpcc-v25.4-large", 0, true}} {
		p, err := plan.LoadPlan("../../plans/" + tc.plan + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		d := dataGeneration(p)
		if d == nil || d.CLoad != tc.cLoad || d.CRun == nil || *d.CRun != 103 || d.Valid == nil || *d.Valid != tc.valid {
			t.Errorf("%s: %+v, want C-Load %d, C-Run 103, valid %v", tc.plan, d, tc.cLoad, tc.valid)
		}
	}
}
