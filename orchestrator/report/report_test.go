package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/internal/jsonschema"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/orchestrator/hostmetrics"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/probe"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

// fakeRun lays out a finished run of plans/local.yaml: two workload
// hosts' histogram files with known counts and their run results, the
// clock probes, one node's disk benchmark.
func fakeRun(t *testing.T) (string, *plan.Plan, *rundir.State) {
	t.Helper()
	dir := t.TempDir()
	p, err := plan.LoadPlan("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	st := rundir.NewState(filepath.Join(dir, "state.json"), "plans/local.yaml", "sum", rundir.StateOptions{}, compiled, t0)
	for i := range st.Stages {
		s, f := t0.Add(time.Duration(i)*time.Minute), t0.Add(time.Duration(i)*time.Minute+30*time.Second)
		st.Stages[i].Status, st.Stages[i].Started, st.Stages[i].Finished = rundir.Done, &s, &f
	}
	// Host k records, every second for 60 s, 1+k New-Orders of 20 ms and
	// as many Payments of 5 ms: 60*(1+2)=180 New-Orders in all.
	for k, host := range []string{"load1", "load2"} {
		hostDir := filepath.Join(dir, "results", host)
		if err := os.MkdirAll(hostDir, 0o755); err != nil {
			t.Fatal(err)
		}
		hist := resulttest.WriteHostFiles(t, hostDir, k)
		writeJSON(t, result.ResultFileFor(hist), hostResult(k))
	}
	write(t, filepath.Join(dir, "logs", "install", "db1.log"), "== 2026-12-02T12:00:00Z check PostgreSQL programs: pg_ctl --version\npg_ctl (PostgreSQL) 15.18\n")
	clock := probe.NewClock()
	clock.Hosts = []probe.ClockHost{{Host: "load1", OffsetMs: 0.5, RTTMs: 2, Probed: t0}, {Host: "load2", OffsetMs: -1.25, RTTMs: 3, Probed: t0}}
	writeJSON(t, filepath.Join(dir, ClockFile), clock)
	fio, err := probe.FioFromKV("db1", "/var/lib/benchrig/db1", "256M", 10*time.Second, map[string]string{
		"fio_read_iops": "30000", "fio_write_iops": "10000", "fio_read_kib": "120000", "fio_write_kib": "40000"})
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, filepath.Join(dir, "results", "db1", probe.FioFile), fio)
	for i, host := range []string{"db1", "db2", "db3", "load1", "load2"} {
		writeSamples(t, filepath.Join(dir, "results", host, "hoststat.jsonl"), host, t0, 30+float64(5*i))
	}
	return dir, p, st
}

// writeSamples records what `benchrig hoststat` writes: 60 one-second
// samples of host around busy % CPU busy (user 3/4 of it, system 1/4),
// with 2 % iowait and 1 % steal.
func writeSamples(t *testing.T, path, host string, t0 time.Time, busy float64) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for s := 1; s <= 60; s++ {
		wobble := float64(s%3) - 1 // -1, 0, +1: a median that is not the mean of a constant
		busy := busy + wobble
		cpu := hostmetrics.CPU{CPUs: 2, User: busy*0.75 - 1, System: busy * 0.25, Steal: 1, IOWait: 2}
		cpu.Idle = 100 - cpu.User - cpu.System - cpu.Steal - cpu.IOWait
		if err := enc.Encode(hostmetrics.Sample{Schema: hostmetrics.Schema, Host: host, Time: t0.Add(time.Duration(s) * time.Second),
			Interval: 1, CPU: cpu, Mem: hostmetrics.Mem{Total: 8 << 30, Available: 4 << 30}}); err != nil {
			t.Fatal(err)
		}
	}
	write(t, path, b.String())
}

// hostResult is what `tpcc run --result` leaves on workload host k: it
// started 3+k ms after --start-at; two audit checks; k errors.
func hostResult(k int) *result.Result {
	delay, limit, p90 := float64(3+k), 5000.0, 20.0
	r := &result.Result{Header: envelope.New(result.KindRun), Warehouses: 2, ActiveWarehouses: 2, StartDelayMs: &delay,
		ElapsedSeconds: 60, TpmC: float64(60 * (1 + k)), Efficiency: 100 * float64(60*(1+k)) / 12.86, EfficiencyWarehouses: 1,
		WarehouseFactor: 12.86, Pass: true,
		Audit: []result.AuditCheck{
			{ID: "9.2.1.7", Verdict: "SKIP", Detail: "not enough deliveries: 0 < 10000"},
			{ID: "5.2.5.7/newOrder", Verdict: "PASS", Observed: &p90, Max: &limit, Unit: "ms", Detail: "p90 20ms, limit 5s"},
		}}
	for _, name := range histogram.TPCCNames() {
		errs, retries := int64(k), int64(2*k)
		lost, backoff := float64(250*k), float64(50*k)
		r.Transactions = append(r.Transactions, result.Txn{Name: name, Errors: &errs, Retries: &retries,
			RetryLostMs: &lost, RetryBackoffMs: &backoff})
	}
	return r
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := envelope.WriteFile(path, v); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReport checks the numbers against the merge formulas and pins the
// Markdown in a golden file.
func TestReport(t *testing.T) {
	dir, p, st := fakeRun(t)
	md, err := Write(dir, p, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	// Elapsed = max(Now+Elapsed) - min(Now) = 61 s - 1 s = 60 s;
	// tpmC = 180 New-Orders / 1 minute; efficiency = 180 / (12.605 * 2).
	if r.Result == nil || r.Result.Elapsed != 60 || r.Result.TpmC != 180 {
		t.Fatalf("result %+v, want 60 s and 180 tpmC", r.Result)
	}
	if want := 100 * 180 / (12.605 * 2); math.Abs(r.Result.Efficiency-want) > 1e-9 {
		t.Errorf("efficiency %v, want %v", r.Result.Efficiency, want)
	}
	if r.StartSkew == nil || r.StartSkew.Spread != 1 {
		t.Errorf("start skew %+v, want a 1 ms spread", r.StartSkew)
	}
	if len(r.Series) != 60 || r.Series[10].TpmC != 180 {
		t.Errorf("series: %d points, [10] = %+v; want 60 points at 180 tpmC", len(r.Series), r.Series[10])
	}
	if r.Database != "pg_ctl (PostgreSQL) 15.18" {
		t.Errorf("database version %q", r.Database)
	}
	if len(r.HostMetrics) != 5 || r.HostMetrics[3].Host != "load1" || r.HostMetrics[3].Role != "workload" ||
		r.HostMetrics[0].Samples != 60 || r.HostMetrics[0].MedianBusy != 30 || r.HostMetrics[0].MeanSteal != 1 {
		t.Errorf("host metrics %+v", r.HostMetrics)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings on a balanced run: %q", r.Warnings)
	}
	for _, f := range []string{"tpmc.svg", "latency.svg", "hosts-cpu.svg"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if no := r.Result.Ops[0]; no.Errors == nil || *no.Errors != 1 || *no.Retries != 2 {
		t.Errorf("newOrder errors %v retries %v, want 0+1 and 0+2 from the hosts' results", no.Errors, no.Retries)
	}
	// Retry costs: 0 + 250 ms per type, 5 types.
	if no := r.Result.Ops[0]; no.RetryLostMs == nil || *no.RetryLostMs != 250 || r.Result.RetryLostSeconds == nil ||
		*r.Result.RetryLostSeconds != 1.25 || r.Result.RetriesPerTxn == nil || r.Result.RetryLostPercent == nil {
		t.Errorf("retry costs: newOrder %v ms, %v s lost, %v per txn; want 250 ms, 1.25 s", no.RetryLostMs, r.Result.RetryLostSeconds, r.Result.RetriesPerTxn)
	}
	if len(r.Audit) != 2 || r.Audit[1].Checks[1].Max == nil || *r.Audit[1].Checks[1].Max != 5000 {
		t.Errorf("audit %+v", r.Audit)
	}
	if len(r.Clock) != 2 || r.Clock[1].OffsetMs != -1.25 || len(r.Disks) != 1 || r.Disks[0].ReadIOPS != 30000 {
		t.Errorf("clock %+v, disks %+v", r.Clock, r.Disks)
	}
	if len(r.Problems) > 0 {
		t.Errorf("problems: %q", r.Problems)
	}
	got, _ := os.ReadFile(md)
	goldenfile.Check(t, "report.md.golden", got)
	goldenfile.Check(t, "report.json.golden", data)
	checkReportSchema(t, data)
}

// checkReportSchema validates report.json against the documented schema.
func checkReportSchema(t *testing.T, doc []byte) {
	t.Helper()
	file := "../../docs/schema/report.v1.json"
	if bytes.Contains(doc, []byte(`"schema": "`+SchemaV2+`"`)) {
		file = "../../docs/schema/report.v2.json"
	}
	s, err := jsonschema.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		t.Errorf("report.json does not match %s:\n%s", file, strings.Join(errs, "\n"))
	}
}

// TestReportReadsOnlyResults: the report takes the audit and the start
// delays from the result files, not from the run logs, and a legacy bare
// clock list still reads.
func TestReportReadsOnlyResults(t *testing.T) {
	dir, p, st := fakeRun(t)
	write(t, filepath.Join(dir, "logs", "run", "load1.log"), "Started 99ms after --start-at\nAudit check 9.9: FAIL: from the log\n")
	write(t, filepath.Join(dir, ClockFile), `[{"host":"load1","offset_ms":0.5,"rtt_ms":2}]`)
	r, err := Build(dir, p, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	if r.StartSkew.PerHost["load1"] != 3 || len(r.Audit[0].Checks) != 2 {
		t.Errorf("skew %+v, audit %+v: read from the log", r.StartSkew, r.Audit)
	}
	if len(r.Clock) != 1 || r.Clock[0].RTTMs != 2 {
		t.Errorf("legacy clock list: %+v", r.Clock)
	}
	// A result file of an unknown schema is not a silent skip: its host
	// is refused, left out of the merge and named (a problem before
	// hosts' files were decoded strictly in the merge).
	write(t, filepath.Join(dir, "results", "load2", "workload2.result.json"), `{"schema":"benchrig.result/v9","kind":"tpcc.run"}`)
	r, _ = Build(dir, p, st, "test")
	if r.Result == nil || len(r.Result.Incomplete) != 1 || !r.Result.Incomplete[0].Refused || !strings.Contains(r.Result.Incomplete[0].Reason, "benchrig.result/v9") || len(r.Audit) != 1 {
		t.Errorf("problems %q, result %+v, %d audits: want load2 refused for its v9 result", r.Problems, r.Result, len(r.Audit))
	}
}

// TestReportUsesTheMergeStage: a merged result from the merge stage that
// covers the round's files and is newer than them is taken as is; a stale
// one is merged again.
func TestReportUsesTheMergeStage(t *testing.T) {
	dir, p, st := fakeRun(t)
	files := []string{"results/load1/workload1.histogram.ndjson", "results/load2/workload2.histogram.ndjson"}
	abs := []string{filepath.Join(dir, files[0]), filepath.Join(dir, files[1])}
	m, _, err := result.MergeFiles(2, abs...)
	if err != nil {
		t.Fatal(err)
	}
	m.Files, m.TpmC = files, 999 // recognisable
	merged := filepath.Join(dir, MergedFile(""))
	writeJSON(t, merged, m)
	r, err := Build(dir, p, st, "test")
	if err != nil || r.Result.TpmC != 999 {
		t.Fatalf("tpmC %v (%v), want the merge stage's 999", r.Result.TpmC, err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(merged, old, old); err != nil {
		t.Fatal(err)
	}
	if r, _ := Build(dir, p, st, "test"); r.Result.TpmC != 180 {
		t.Errorf("stale merged file: tpmC %v, want 180 merged again", r.Result.TpmC)
	}
	if MergedFile("workers-4.r2") != "results/merged.workers-4.r2.result.json" {
		t.Error(MergedFile("workers-4.r2"))
	}
}

// TestReportWithoutResults: a run that never reached collect still gets
// a report saying so, not an error.
func TestReportWithoutResults(t *testing.T) {
	dir, p, st := fakeRun(t)
	os.RemoveAll(filepath.Join(dir, "results"))
	md, err := Write(dir, p, st, "test")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(md)
	if !strings.Contains(string(got), "No histogram files were collected") {
		t.Errorf("report lacks the no-result note:\n%s", got)
	}
}

// TestReportSweep: a 3-point sweep, each point run twice, gives per-point
// statistics, the sweep plot and the largest passing value.
func TestReportSweep(t *testing.T) {
	dir := t.TempDir()
	planText, err := os.ReadFile("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(planText), "  duration: 1m\n", "  duration: 1m\n  wait: \"false\"\n  repeat: 2\n  sweep: {flag: workers, values: [1, 2, 4]}\n", 1)
	p, err := plan.ParsePlan("../../plans/local.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	compiled, _ := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
	st := rundir.NewState(filepath.Join(dir, "state.json"), "plans/local.yaml", "sum", rundir.StateOptions{}, compiled, time.Now())
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	// New-Orders per host per second: value 1 → 1 (tpmC 120, 476 %),
	// value 2 → 2 + repeat (pass), value 4 → 0 New-Orders in repeat 2
	// (efficiency 0: fails).
	perSec := func(rd plan.Round) int {
		switch rd.Value {
		case 1:
			return 1
		case 2:
			return 1 + rd.Repeat
		}
		return 2 - rd.Repeat
	}
	for _, rd := range p.Rounds() {
		for i, h := range p.Workload {
			var b bytes.Buffer
			enc := histogram.NewEncoder(&b)
			for s := 1; s <= 60; s++ {
				for _, op := range histogram.TPCCNames() {
					hist := histogram.NewHistogram()
					if op == histogram.NewOrder {
						for range perSec(rd) {
							hist.RecordValue(int64(20 * time.Millisecond))
						}
					}
					_ = enc.Encode(histogram.Tick{Name: op, Hist: histogram.Export(hist), Elapsed: time.Second, Now: t0.Add(time.Duration(s) * time.Second)})
				}
			}
			write(t, filepath.Join(dir, "results", h.Name, plan.HistogramFile(p, i, rd)), b.String())
		}
	}
	if _, err := Write(dir, p, st, "test"); err != nil {
		t.Fatal(err)
	}
	var r Report
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Rounds) != 6 || len(r.Points) != 3 {
		t.Fatalf("%d rounds, %d points; want 6 and 3", len(r.Rounds), len(r.Points))
	}
	// Value 2: 2 hosts × 2 and × 3 New-Orders/s → 240 and 360 tpmC.
	if pt := r.Points[1]; pt.Value != 2 || pt.Runs != 2 || pt.TpmC.Mean != 300 || pt.TpmC.Min != 240 || pt.TpmC.Max != 360 ||
		math.Abs(pt.TpmC.StdDev-math.Sqrt(2*60*60)) > 1e-9 || !pt.Pass {
		t.Errorf("point 2: %+v", pt)
	}
	if r.Points[2].Pass {
		t.Errorf("point 4 passed with a zero-tpmC run: %+v", r.Points[2])
	}
	if r.MaxPassing == nil || *r.MaxPassing != 2 {
		t.Errorf("largest passing value %v, want 2", r.MaxPassing)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep.svg")); err != nil {
		t.Error(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"6 measured runs, sweeping --workers", "| 2 | 2 | 300.00 | 84.85 | 240.00 | 360.00 |", "Largest passing --workers: **2**", "![sweep](sweep.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// TestClientBoundWarning: the samples of a run whose driver host was
// pinned by a CPU hog (load2 at 97 % busy) while the database hosts idled
// make the report warn, in report.json and at the top of report.md; the
// same hog on a database host does not.
func TestClientBoundWarning(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		hot  string
		warn bool
	}{{"load2", true}, {"db2", false}} {
		dir, p, st := fakeRun(t)
		writeSamples(t, filepath.Join(dir, "results", tc.hot, "hoststat.jsonl"), tc.hot, t0, 97)
		md, err := Write(dir, p, st, "test")
		if err != nil {
			t.Fatal(err)
		}
		var r Report
		data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(md)
		got := len(r.Warnings) == 1 && strings.Contains(r.Warnings[0], "client-bound") && strings.Contains(r.Warnings[0], "load2 97%")
		if got != tc.warn {
			t.Errorf("%s hot: warnings %q, want a client-bound warning: %v", tc.hot, r.Warnings, tc.warn)
		}
		if tc.warn && !strings.Contains(string(text), "> **Warning:** client-bound") {
			t.Errorf("report.md does not show the warning:\n%s", text)
		}
		checkReportSchema(t, data)
	}
}

// TestVersionLine: a host's version line is kept when it is one, and
// named as not one when it carries anything else (escape sequences,
// markup, a long line). Without VersionLine, report.json and export
// carried pg_ctl's answer raw.
func TestVersionLine(t *testing.T) {
	for in, want := range map[string]string{
		"": "",
		"pg_ctl (PostgreSQL) 16.4 (Debian 16.4-1.pgdg120+2)": "pg_ctl (PostgreSQL) 16.4 (Debian 16.4-1.pgdg120+2)",
		"pg_ctl (PostgreSQL) 16\x1b[2J":                      "not a version line (26 bytes)",
		"16 <img src=x onerror=alert(1)>":                    "not a version line (31 bytes)",
		strings.Repeat("1", 121):                             "not a version line (121 bytes)",
		"16\u202e4.61":                                       "not a version line (9 bytes)",
	} {
		if got := VersionLine(in); got != want {
			t.Errorf("VersionLine(%q) = %q, want %q", in, got, want)
		}
	}
}
