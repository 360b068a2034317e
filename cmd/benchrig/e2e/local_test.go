package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// TestEndToEndLocal runs every stage of the local topology and checks the
// result, the report, the database and that the steps executed are the
// steps a dry-run lists.
func TestEndToEndLocal(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s")
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "2s", e.Plan)
	if code := e.Wait(6 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.RunDir()
	e.CheckResult(runDir)
	// The two hosts started from the ready barrier: the runner said so
	// once both were ready, and the report shows their warm-ups' spread.
	if out := e.Logs.String(); !strings.Contains(out, "start barrier: 2 of 2 hosts ready") {
		t.Errorf("the run stage did not start from the ready barrier:\n%s", out)
	}
	if md, err := os.ReadFile(filepath.Join(runDir, "report.md")); err != nil || !strings.Contains(string(md), "They started from the ready barrier") {
		t.Errorf("the report does not show the ready barrier: %v\n%s", err, md)
	}
	executed, err := os.ReadFile(filepath.Join(runDir, "steps.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The start barrier's files are named after the job, which a run
	// tags with its directory's name (runner.jobName); the dry-run has
	// no run directory.
	got, want := e2e.SortedJournal(strings.ReplaceAll(string(executed), "."+filepath.Base(runDir)+".", ".")), e2e.SortedJournal(e.DryRunJournal())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("executed steps differ from the dry-run's:\n--- dry-run\n%s\n--- executed\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	out, err := exec.Command(e.Bin, "status", runDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "merge      done    1/1") {
		t.Errorf("status: %v\n%s", err, out)
	}
	checkConsole(t, e.Logs.String(), runDir)
}

// checkConsole: the console of a run of the demo plan, without
// --verbose, is for a person (under 150 lines; the workload hosts'
// per-second tables made it 1,109 for a minute's run), and the run
// directory holds the same and more: output.log every line the console
// showed, in order, and the live per-second lines of each workload host,
// which logs/run/<host>.log holds as the host wrote them.
func checkConsole(t *testing.T, console, runDir string) {
	t.Helper()
	if n := strings.Count(console, "\n"); n >= 150 {
		t.Errorf("the console got %d lines, want under 150:\n%s", n, console)
	}
	outLog, err := os.ReadFile(filepath.Join(runDir, rundir.OutputLog))
	if err != nil {
		t.Fatal(err)
	}
	rest := string(outLog)
	for _, line := range strings.Split(strings.TrimSuffix(console, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "run directory: "), strings.HasPrefix(line, "run complete: "), strings.HasPrefix(line, "report: "),
			strings.HasPrefix(line, "   preflight: "), strings.HasPrefix(line, "HOST "):
			continue // said after (or before) the log was open; the preflight's brief (the log has every row)
		}
		i := strings.Index(rest, line+"\n")
		if i < 0 {
			t.Errorf("output.log lacks the console's line %q (or has it out of order)", line)
			continue
		}
		rest = rest[i+len(line)+1:]
	}
	for _, h := range []string{"load1", "load2"} {
		hostLog, err := os.ReadFile(filepath.Join(runDir, rundir.LogsDir, "run", h+".log"))
		if err != nil {
			t.Fatal(err)
		}
		ticks := 0
		for _, line := range strings.Split(string(hostLog), "\n") {
			if !strings.Contains(line, "(this tick)") {
				continue
			}
			ticks++
			if !strings.Contains(string(outLog), h+" | "+line+"\n") {
				t.Errorf("output.log lacks %s's live line %q", h, line)
			}
			if strings.Contains(console, line) {
				t.Errorf("the console shows %s's per-second line %q without --verbose", h, line)
			}
		}
		if ticks < 10 {
			t.Errorf("logs/run/%s.log holds %d per-second lines of a 15s run", h, ticks)
		}
	}
}

// TestPreflight runs the preflight stage on the lab: one table with every
// host, a disk benchmark where fio is installed; an open-files limit no
// host can grant stops the run with a failed check.
func TestPreflight(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s", e2e.PlanOpts{Stages: "preflight, install"})
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(3 * time.Minute); code != 0 {
		t.Fatalf("preflight on healthy hosts exited %d", code)
	}
	// The console shows only the rows not ok and a summary; the whole
	// table, every host's row, is in output.log. Every host passes; a
	// disk benchmark below 5000 read IOPS is a warning, which a disk
	// shared with the other tests' labs (they run in parallel) or with
	// another job may give: the machine's, not benchrig's.
	if m := preflightSummary.FindStringSubmatch(e.Logs.String()); m == nil || atoi(m[1])+atoi(m[2]) != 5 {
		t.Errorf("the console lacks the preflight summary of 5 passing hosts (ok or warned):\n%s", e.Logs.String())
	}
	log, err := os.ReadFile(filepath.Join(e.RunDir(), "output.log"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(log)
	for _, want := range []string{"HOST   OS/ARCH", "db1 ", "load2 ", fmt.Sprintf("%d free", e.Port)} {
		if !strings.Contains(out, want) {
			t.Errorf("preflight table lacks %q:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("fio"); err == nil && !strings.Contains(out, "IOPS") {
		t.Errorf("fio is installed but the table has no disk benchmark:\n%s", out)
	}
	// The probes' results, as the report reads them.
	for _, f := range []string{"results/db1/fio.json", "results/load2/fio.json", "clock.json"} {
		if data, err := os.ReadFile(filepath.Join(e.RunDir(), f)); err != nil || !strings.Contains(string(data), `"schema": "benchrig.result/v1"`) {
			t.Errorf("%s: %v\n%s", f, err, data)
		}
	}

	// Each load host opens 120 connections to the primary: the start
	// stage would size max_connections for them (245), so the primary
	// passes; the impossible ulimit fails both load hosts.
	bad := e2e.New(t, "15s", e2e.PlanOpts{Stages: "preflight, install", TPCC: "  ulimit: 1073741824\n  conns: 120\n"})
	bad.Start("run", "--runs-dir", bad.Runs, bad.Plan)
	if code := bad.Wait(3 * time.Minute); code != e2e.ExitCheck {
		t.Errorf("impossible ulimit: exit %d, want %d", code, e2e.ExitCheck)
	}
	out = bad.Logs.String()
	if !strings.Contains(out, "cannot raise the open-files limit") || !strings.Contains(out, "preflight failed on 2 of 5 hosts") {
		t.Errorf("the failure does not say what and where:\n%s", out)
	}
	// The primary's row passes, so only output.log has it (the console
	// shows the rows not ok).
	if log, err := os.ReadFile(filepath.Join(bad.RunDir(), "output.log")); err != nil || !strings.Contains(string(log), "gets 240 of 245") {
		t.Errorf("output.log lacks the primary's connections (gets 240 of 245): %v\n%s", err, log)
	}
	if strings.Contains(out, "== stage install") {
		t.Error("the run went on to install after a failed preflight")
	}
}

// preflightSummary is the console's preflight line: hosts ok, and those
// that passed with warnings.
var preflightSummary = regexp.MustCompile(`preflight: (\d+) of 5 hosts ok(?:, (\d+) with warnings)? \(`)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestRepeatAndSweep: repeat: 3 gives three measured runs and their
// statistics; then, on the same loaded cluster, a 3-point sweep of
// --workers gives the table and the plot.
func TestRepeatAndSweep(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "4s", e2e.PlanOpts{TPCC: "  repeat: 3\n"})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	if code := e.Wait(6 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	r := e2e.ReadReport(t, e.RunDir())
	if len(r.Rounds) != 3 || len(r.Points) != 1 || r.Points[0].Runs != 3 {
		t.Fatalf("repeat: 3 gave %d runs, %d points", len(r.Rounds), len(r.Points))
	}
	pt := r.Points[0]
	if pt.TpmC.Mean <= 0 || pt.TpmC.Min > pt.TpmC.Mean || pt.TpmC.Max < pt.TpmC.Mean {
		t.Errorf("statistics: %+v", pt.TpmC)
	}

	plan, err := os.ReadFile(e.Plan)
	if err != nil {
		t.Fatal(err)
	}
	sweep := strings.NewReplacer("  repeat: 3\n", "", `  wait: "0.1"`, "  wait: \"false\"\n  sweep: {flag: workers, values: [1, 2, 4]}").Replace(string(plan))
	sweepPlan := filepath.Join(filepath.Dir(e.Plan), "sweep.yaml")
	if err := os.WriteFile(sweepPlan, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	runs2 := filepath.Join(filepath.Dir(e.Plan), "runs2")
	e.Start("run", "--runs-dir", runs2, "--start-lead", "1s", "--from", "run", sweepPlan)
	if code := e.Wait(6 * time.Minute); code != 0 {
		t.Fatalf("sweep exited %d", code)
	}
	dirs, _ := filepath.Glob(filepath.Join(runs2, "e2e-*"))
	if len(dirs) != 1 {
		t.Fatalf("sweep run directories: %v", dirs)
	}
	r = e2e.ReadReport(t, dirs[0])
	if len(r.Points) != 3 || r.Points[0].Value != 1 || r.Points[2].Value != 4 {
		t.Fatalf("sweep points: %+v", r.Points)
	}
	md, _ := os.ReadFile(filepath.Join(dirs[0], "report.md"))
	if !strings.Contains(string(md), "sweeping --workers") || !strings.Contains(string(md), "![sweep](sweep.svg)") {
		t.Errorf("report.md lacks the sweep table or plot:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "sweep.svg")); err != nil {
		t.Error(err)
	}
}

// TestCrudPlan runs the seed's CRUD benchmark from a plan's run stage on
// both workload hosts, collects their results and merges them.
func TestCrudPlan(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s", e2e.PlanOpts{
		Stages: "install, start, init, run, collect, merge",
		Top:    "benchmark: crud\ncrud: {goroutines: 4, records: 50, select_repeat: 2, many_repeat: 5}\n",
	})
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(4 * time.Minute); code != 0 {
		t.Fatalf("crud plan exited %d", code)
	}
	out := e.Logs.String()
	for _, want := range []string{`Ins Dur \(s\)`, `SelMany Q/s`, `local \|\s+load1\s`, `local \|\s+load2\s`, `local \|\s+all\s`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("merged crud table lacks %s:\n%s", want, e2e.LastN(out, 30))
		}
	}
	md, err := os.ReadFile(filepath.Join(e.RunDir(), "report.md"))
	if err != nil || !strings.Contains(string(md), "Ins Dur (s)") {
		t.Errorf("report.md lacks the crud table: %v\n%s", err, md)
	}
}

// TestSearch runs a max-warehouse line search on the local topology: each
// iteration runs, collects, merges and checks; the report names the
// largest passing value and plots the tried values.
func TestSearch(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "4s", e2e.PlanOpts{
		Stages: "install, start, init, configure, import, run",
		TPCC:   "  search: {min: 2, max: 3}\n",
	})
	// Each of the two partitions needs an active warehouse (validation
	// refuses a search below that), so the search runs over 2..3 of 3.
	data, err := os.ReadFile(e.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.Plan, bytes.Replace(data, []byte("  warehouses: 2\n"), []byte("  warehouses: 3\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	if code := e.Wait(6 * time.Minute); code != 0 {
		t.Fatalf("search exited %d", code)
	}
	out := e.Logs.String()
	if !strings.Contains(out, "search: trying --active-warehouses=3") || !strings.Contains(out, "search: the largest passing --active-warehouses is") {
		t.Errorf("the search did not report its steps:\n%s", e2e.LastN(out, 30))
	}
	st, err := rundir.ReadState(filepath.Join(e.RunDir(), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var points []stages.SearchPoint
	for _, s := range st.Stages {
		points = append(points, s.Search...)
	}
	r := e2e.ReadReport(t, e.RunDir())
	if len(points) == 0 || len(r.Points) != len(points) || r.Points[0].Flag != "active-warehouses" {
		t.Fatalf("state points %v, report points %+v", points, r.Points)
	}
	if best := r.MaxPassing; best != nil && *best != 2 && *best != 3 {
		t.Errorf("largest passing %d outside 2..3", *best)
	}
}

// TestHostMetricsAndThresholds runs the local topology with a threshold
// no run meets: status --watch follows it with the live tpmC,
// every host samples itself during the run (the report has
// a CPU panel and a summary row for all five), the run ends with exit 30
// and the one-line reason, and check-result without flags says the same
// from the plan copy.
func TestHostMetricsAndThresholds(t *testing.T) {
	t.Parallel()
	// The published reference: the v20.1 10-warehouse page's figures (a
	// CockroachDB result; here only something to set the run beside).
	published := "published:\n  page: https://www.cockroachlabs.com/docs/v20.1/performance-benchmarking-with-tpc-c-10-warehouses\n" +
		"  release: v19.2\n  year: 2019\n  tpmc: 121.6\n  efficiency_percent: 94.6\n  efficiency_basis: workload\n" +
		"  latency:\n    - {op: newOrder, percentile: p95, value: 71.3ms}\n"
	e := e2e.New(t, "12s", e2e.PlanOpts{Top: "thresholds:\n  min_tpmc: 1000000000\n" + published})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "2s", e.Plan)
	// status --watch follows the run from its run stage to its end, as
	// plain lines (its output is a pipe), with the live merged tpmC.
	e.WaitFor("the run stage", 5*time.Minute, func(st *rundir.State) bool { return e2e.StageStatus(st, "run") == rundir.Running })
	watch, err := exec.Command(e.Bin, "status", "--watch", "--interval", "500ms", e.RunDir()).CombinedOutput()
	if err != nil {
		t.Errorf("status --watch: %v\n%s", err, watch)
	}
	t.Logf("status --watch:\n%s", watch)
	if !regexp.MustCompile(`stage run running: .*; tpmC [1-9][0-9.]* \(load1 [0-9.]+, load2 [0-9.]+\)`).Match(watch) ||
		!strings.HasSuffix(strings.TrimSpace(string(watch)), "run finished") || strings.Contains(string(watch), "\x1b") {
		t.Errorf("status --watch did not follow the run with its live tpmC:\n%s", watch)
	}
	if code := e.Wait(6 * time.Minute); code != e2e.ExitCheck {
		t.Fatalf("benchrig run exited %d, want %d (threshold missed)", code, e2e.ExitCheck)
	}
	if !strings.Contains(e.Logs.String(), "check-result: tpmC ") || !strings.Contains(e.Logs.String(), "< 1e+09 (min-tpmc)") {
		t.Errorf("no one-line threshold reason in the output:\n%s", e2e.LastN(e.Logs.String(), 20))
	}
	runDir := e.RunDir()
	r := e.CheckResult(runDir)
	hosts := map[string]string{}
	for _, m := range r.HostMetrics {
		if m.Samples < 5 {
			t.Errorf("%s: %d samples over an 8s run", m.Host, m.Samples)
		}
		hosts[m.Host] = m.Role
	}
	want := map[string]string{"db1": "database", "db2": "database", "db3": "database", "load1": "workload", "load2": "workload"}
	if fmt.Sprint(hosts) != fmt.Sprint(want) {
		t.Errorf("host metrics for %v, want %v", hosts, want)
	}
	md, _ := os.ReadFile(filepath.Join(runDir, "report.md"))
	if !strings.Contains(string(md), "![hosts-cpu](hosts-cpu.svg)") || !strings.Contains(string(md), "| - | load2 | workload |") {
		t.Errorf("report.md lacks the host CPU plot or table:\n%s", md)
	}
	svg, err := os.ReadFile(filepath.Join(runDir, "hosts-cpu.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for h := range want {
		if !strings.Contains(string(svg), h+": CPU") {
			t.Errorf("hosts-cpu.svg has no panel for %s", h)
		}
	}
	out, err := exec.Command(e.Bin, "check-result", runDir).CombinedOutput()
	if code := e2e.ExitCodeOf(err); code != e2e.ExitCheck || !strings.Contains(string(out), "(min-tpmc)") {
		t.Errorf("check-result without flags: exit %d\n%s", code, out)
	}
	// The plan's published reference beside the run's figures: in
	// report.json, report.md, the run's last lines and check-result's.
	if r.Published == nil || r.Published.Run == nil || r.Published.Run.TpmC != r.Result.TpmC || r.Published.TpmC != 121.6 {
		t.Fatalf("report.json's published reference: %+v", r.Published)
	}
	line := regexp.MustCompile(`[0-9,]+\.[0-9] tpmC = [0-9.]+ % of the published 121\.6 \(measured on v19\.2, 2019\)`)
	t.Logf("published: %s", r.Published.Line())
	if !strings.Contains(string(md), "## Published reference") || !line.Match(md) || !strings.Contains(string(md), "| newOrder p95 |") {
		t.Errorf("report.md lacks the published reference beside the run:\n%s", md)
	}
	if !line.Match(out) || !line.MatchString(e.Logs.String()) {
		t.Errorf("check-result or the run does not compare with the published result:\n%s\n%s", out, e2e.LastN(e.Logs.String(), 20))
	}
}

// TestTeardown starts the local topology's databases over real sshd,
// then tears them down: teardown RUN_DIR stops every PostgreSQL node
// (and logs under the run directory), --wipe without a terminal or --yes
// is refused, and --wipe --yes on the plan removes stores and work
// directories.
func TestTeardown(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "5s", e2e.PlanOpts{Stages: "install, start"})
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(3 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.RunDir()
	pgRunning := func(i int) bool {
		data := filepath.Join(e.Home, e.Prefix, fmt.Sprintf("db%d", i), "pgdata")
		return e.AsLoginUser(e.PGBin+"/pg_ctl", "-D", data, "status").Run() == nil
	}
	for i := 1; i <= 3; i++ {
		if !pgRunning(i) {
			t.Fatalf("db%d is not running after start", i)
		}
	}
	out, err := exec.Command(e.Bin, "teardown", runDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "teardown complete") {
		t.Fatalf("teardown %s: %v\n%s", runDir, err, out)
	}
	for i := 1; i <= 3; i++ {
		if pgRunning(i) {
			t.Errorf("db%d still runs after teardown", i)
		}
	}
	if _, err := os.Stat(filepath.Join(runDir, "logs", "teardown", "db1.log")); err != nil {
		t.Errorf("no teardown log in the run directory: %v", err)
	}
	cmd := exec.Command(e.Bin, "teardown", e.Plan, "--wipe")
	cmd.Stdin = nil // /dev/null: not a terminal
	out, err = cmd.CombinedOutput()
	if code := e2e.ExitCodeOf(err); code != e2e.ExitUsage || !strings.Contains(string(out), "add --yes") {
		t.Errorf("--wipe without a terminal: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.Home, e.Prefix, "db1", "pgdata")); err != nil {
		t.Fatalf("the refused wipe removed the store: %v", err)
	}
	out, err = exec.Command(e.Bin, "teardown", e.Plan, "--wipe", "--yes").CombinedOutput()
	if err != nil {
		t.Fatalf("teardown --wipe --yes: %v\n%s", err, out)
	}
	for _, h := range []string{"db1", "db2", "db3", "load1", "load2"} {
		if _, err := os.Stat(filepath.Join(e.Home, e.Prefix, h)); !os.IsNotExist(err) {
			t.Errorf("%s's work directory is still there: %v", h, err)
		}
	}
}
