package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// TestReportPublished: a plan's published reference appears in
// report.json and report.md beside the run's figures: tpmC as a
// percentage of the published, the efficiency on the published figure's
// basis, each published latency with the run's (workload's final line's
// latencies are New-Order's, as the shipped plans say); the document
// matches the schema.
func TestReportPublished(t *testing.T) {
	dir, p, st := fakeRun(t)
	p.Published = &plan.Published{Page: "https://www.cockroachlabs.com/docs/v20.1/performance-benchmarking-with-tpc-c-10-warehouses",
		Release: "v19.2", Year: 2019, TpmC: 200, Efficiency: 94.6, EfficiencyBasis: plan.EfficiencyWorkload,
		Latency: []plan.PublishedLatency{{Op: "newOrder", Percentile: "p95", Value: 71300 * time.Microsecond}, {Op: "newOrder", Percentile: "p90", Value: 54500 * time.Microsecond}},
		Note:    "a 300 s run | not a table cell"}
	md, err := Write(dir, p, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	pub := r.Published
	if pub == nil || pub.Run == nil {
		t.Fatalf("report.json has no published reference with the run: %+v", pub)
	}
	// 180 tpmC (TestReport) over 2 warehouses.
	if pub.Run.TpmC != 180 || pub.Run.TpmCPercent != 90 || pub.Run.Of != "the run" {
		t.Errorf("run %+v, want 180 tpmC = 90 %% of 200", pub.Run)
	}
	if want := 100 * 180 / (12.86 * 2); pub.Run.Efficiency == nil || math.Abs(*pub.Run.Efficiency-want) > 1e-9 {
		t.Errorf("efficiency on workload's basis %v, want %v", pub.Run.Efficiency, want)
	}
	if l := pub.Run.Latency; len(l) != 2 || l[0].PublishedMs != 71.3 || l[0].Ms == nil || *l[0].Ms != r.Result.Ops[0].P95 || l[1].Ms == nil || *l[1].Ms != r.Result.Ops[0].P90 {
		t.Errorf("latencies %+v, want newOrder p95 beside 71.3 ms and p90 beside 54.5 ms", l)
	}
	line := pub.Line()
	if line != "180.0 tpmC = 90.0 % of the published 200 (measured on v19.2, 2019)" {
		t.Errorf("line %q", line)
	}
	got, _ := os.ReadFile(md)
	for _, want := range []string{
		"## Published reference\n\n180.0 tpmC = 90.0 % of the published 200 (measured on v19.2, 2019).",
		"| figure | this run | published (v19.2, 2019) |",
		"| tpmC | 180.0 (90.0 %) | 200 |",
		"| efficiency (workload's efc, 12.86 tpmC per warehouse) | 699.84 % | 94.6 % |",
		"| newOrder p95 |",
		"| newOrder p90 | ",
		`a 300 s run &vert; not a table cell`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("report.md lacks %q:\n%s", want, got)
		}
	}
	checkReportSchema(t, data)

	// Without a plan reference the report has none.
	dir, p, st = fakeRun(t)
	if _, err := Write(dir, p, st, "test"); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(dir, "report.json"))
	if strings.Contains(string(data), `"published"`) {
		t.Error("report.json of a plan without published: has a published reference")
	}
}

// TestPublishedWithoutResult: a sweep has no single result, so the
// reference is shown alone.
func TestPublishedWithoutResult(t *testing.T) {
	r := &Report{Rounds: []RoundResult{{Label: "w10", Flag: "workers", Value: 10, Result: &Result{TpmC: 5}}}}
	r.published(&plan.Plan{Published: &plan.Published{Page: "https://example.com/p", Release: "v20.2", TpmC: 31064.6}})
	if r.Published == nil || r.Published.Run != nil {
		t.Fatalf("published %+v, want the reference without a run", r.Published)
	}
	if got := r.Published.Line(); got != "published 31,064.6 tpmC (measured on v20.2); no single result to compare" {
		t.Errorf("line %q", got)
	}
	// Repeats compare by their median.
	r = &Report{Rounds: []RoundResult{{Result: &Result{TpmC: 1}}, {Result: &Result{TpmC: 3}}, {Result: &Result{TpmC: 2}}}}
	r.published(&plan.Plan{Published: &plan.Published{Page: "https://example.com/p", Release: "v20.2", TpmC: 4}})
	if run := r.Published.Run; run == nil || run.TpmC != 2 || run.TpmCPercent != 50 || run.Of != "the median of 3 repeats" {
		t.Errorf("repeats: %+v, want the median 2 = 50 %%", run)
	}
}

func TestThousands(t *testing.T) {
	for _, c := range []struct {
		f    float64
		prec int
		want string
	}{
		{1245461.78, -1, "1,245,461.78"}, {1201000, 1, "1,201,000.0"}, {160420.0, -1, "160,420"}, {121.6, -1, "121.6"},
		{999, 0, "999"}, {1000, 0, "1,000"}, {-1234.5, 1, "-1,234.5"}, {0, 1, "0.0"},
	} {
		if got := Thousands(c.f, c.prec); got != c.want {
			t.Errorf("Thousands(%v, %d) = %q, want %q", c.f, c.prec, got, c.want)
		}
	}
}
