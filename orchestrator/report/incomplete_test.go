package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/internal/jsonschema"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestReportIncomplete: when load2's measured run died (its histogram cut
// after 30 of 60 s, mid-line, or never written; no run result; the died
// record the orchestrator leaves), report.md opens with the INCOMPLETE
// banner naming host, reason and coverage, the result names the host
// and fails, and report.json is benchrig.report/v2, which the v1 schema
// refuses. The banner of the first case is pinned.
func TestReportIncomplete(t *testing.T) {
	for _, tc := range []struct {
		name   string
		keep   func(data []byte) []byte // nil: no histogram file at all
		banner string
		golden string
	}{
		{name: "cut mid-line", keep: func(b []byte) []byte { return b[:nthLine(b, 30*5)+40] },
			banner: "> - load2 killed (SIGKILL), covered 30.0 s of the 60.0 s window (50.0%)", golden: "report-incomplete.md.golden"},
		{name: "no histogram", keep: nil,
			banner: "> - load2 killed (SIGKILL), covered 0.0 s of the 60.0 s window (0.0%)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, p, st := fakeRun(t)
			hist := filepath.Join(dir, "results", "load2", "workload2.histogram.ndjson")
			data, err := os.ReadFile(hist)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(hist)
			os.Remove(result.ResultFileFor(hist))
			if tc.keep != nil {
				write(t, hist, string(tc.keep(data)))
			}
			writeJSON(t, result.DiedFileFor(hist), result.Died{Header: envelope.New(result.KindDied), Host: "load2", Stage: "run",
				Step: "run TPC-C", Job: "run.x", Reason: "killed (SIGKILL)", WindowSeconds: 60})
			md, err := Write(dir, p, st, "test")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(md)
			head, _, _ := strings.Cut(string(got), "## Result")
			if !strings.HasPrefix(string(got), "# benchrig report: local\n\n> **INCOMPLETE:**") || !strings.Contains(head, tc.banner+"\n") {
				t.Errorf("report.md does not open with the banner %q:\n%s", tc.banner, head)
			}
			if tc.golden != "" {
				goldenfile.Check(t, tc.golden, []byte(head))
			}
			doc, _ := os.ReadFile(filepath.Join(dir, "report.json"))
			var r Report
			if err := json.Unmarshal(doc, &r); err != nil {
				t.Fatal(err)
			}
			if r.Schema != SchemaV2 || r.Result == nil || r.Result.Pass || len(r.Result.Incomplete) != 1 ||
				r.Result.Incomplete[0].Host != "load2" || r.Result.Incomplete[0].File != "results/load2/workload2.histogram.ndjson" {
				t.Fatalf("schema %s, result %+v: want v2, failing, load2 incomplete", r.Schema, r.Result)
			}
			if len(r.Problems) > 0 {
				t.Errorf("problems: %q", r.Problems)
			}
			checkReportSchema(t, doc)
			v1, err := jsonschema.Load("../../docs/schema/report.v1.json")
			if err != nil {
				t.Fatal(err)
			}
			if errs := v1.Validate(doc); len(errs) == 0 {
				t.Error("report.v1.json accepts an incomplete report")
			}
		})
	}
}

// nthLine is the offset of the start of line n+1 (n whole lines).
func nthLine(b []byte, n int) int {
	off := 0
	for range n {
		off += strings.IndexByte(string(b[off:]), '\n') + 1
	}
	return off
}
