package faults_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/orchestrator/rundir"
)

// TestKillAndResume SIGKILLs the orchestrator once inside every stage of
// the e2e plan in turn, resuming after each kill: the final resume must
// finish with the right result, every stage must have been interrupted
// (not done at its kill, and run again by the resume after it), and no
// stage finished before a kill may run a step again.
//
// A kill is timed from steps.log, which gets a step's line before the
// step is sent: the test polls it every few milliseconds and kills at the
// first step of the stage, or a set time after it (into the load jobs,
// the measured run, the rolling swap). What a kill there can catch: a
// step not yet sent, or one in flight (its remote command may finish or
// die with the connection; resume must cope with either); a detached job
// left running (resume re-attaches by its name). What it cannot: a kill
// between two writes of the state file, or at a chosen byte of a
// transfer. A stage whose steps all finish before the kill lands (a
// loaded machine) is not counted as interrupted: the state after the kill
// shows it done, and the test runs it again (resume --from) and kills
// again, failing after three such misses.
func TestKillAndResume(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s")
	want := e2e.CountByStage(e2e.SortedJournal(e.DryRunJournal()))
	kills := []struct {
		stage string
		after time.Duration // after the stage's first step started
	}{
		{"install", 300 * time.Millisecond}, // uploads under way
		{"start", 300 * time.Millisecond},   // initdb of the primary
		{"init", 0},
		{"configure", 0},
		{"import", 3 * time.Second}, // into the load jobs
		{"partition", 0},
		{"swap", time.Second},    // a standby stopped or starting
		{"run", 6 * time.Second}, // into the measured run
		{"collect", 0},
		{"merge", 0},
	}
	type killed struct {
		stage  string
		done   []string       // stages done when it was killed
		counts map[string]int // steps.log counts at the kill
	}
	var got []killed
	args := []string{"run", "--runs-dir", e.Runs, "--start-lead", "2s", e.Plan}
	var journalAt int64
	for _, k := range kills {
		var st *rundir.State
		for try := 1; ; try++ {
			e.Start(args...)
			journalAt = e.KillInStage(k.stage, journalAt, k.after)
			var err error
			if st, err = rundir.ReadState(filepath.Join(e.RunDir(), "state.json")); err != nil {
				t.Fatal(err)
			}
			if e2e.StageStatus(st, k.stage) != rundir.Done {
				break
			}
			// A loaded machine let the stage finish before the kill
			// landed: run it again (and the stages after it) and kill
			// again.
			if try == 3 {
				t.Fatalf("the kill in stage %s came after it finished, %d times: the stage was not interrupted", k.stage, try)
			}
			t.Logf("the kill in stage %s came after it finished; running it again (resume --from %s)", k.stage, k.stage)
			args = []string{"resume", "--from", k.stage, "--start-lead", "2s", e.RunDir()}
		}
		got = append(got, killed{k.stage, e2e.DoneStages(st), e.JournalCounts(e.RunDir())})
		args = []string{"resume", "--start-lead", "2s", e.RunDir()}
	}
	e.Start(args...)
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("final resume exited %d", code)
	}
	runDir := e.RunDir()
	e.CheckResult(runDir)

	final := e.JournalCounts(runDir)
	for i, k := range got {
		if len(k.done) != i {
			t.Errorf("kill %d (in %s): stages done %v, want the %d before it", i+1, k.stage, k.done, i)
		}
		for _, stage := range k.done {
			if final[stage] != k.counts[stage] {
				t.Errorf("stage %s was done before the kill in %s, yet ran %d more steps after it", stage, k.stage, final[stage]-k.counts[stage])
			}
		}
		if final[k.stage] <= k.counts[k.stage] {
			t.Errorf("stage %s, interrupted by a kill, ran no step again after it (%d steps at the kill, %d in all)", k.stage, k.counts[k.stage], final[k.stage])
		}
		if final[k.stage] < want[k.stage] {
			t.Errorf("stage %s ran %d steps in all, fewer than the plan's %d", k.stage, final[k.stage], want[k.stage])
		}
	}
	out := e.OutputLog(runDir)
	t.Logf("stages, redials and re-attaches:\n%s", e2e.FaultLines(out))
	if !strings.Contains(e2e.StageOutput(out, "run"), "re-attaching to job run") && !strings.Contains(e2e.StageOutput(out, "run"), "already finished") {
		t.Errorf("the resume after the kill in the run stage did not re-attach to the run jobs:\n%s", e2e.LastN(e2e.StageOutput(out, "run"), 30))
	}
}

// TestSSHDKilledMidRun kills one workload host's sshd (and its sessions)
// during the run and keeps it away past the reconnect budget: the run
// redials for the budget, then fails with exit 10 naming host, stage and
// step; resume, once the host is back, finishes the run (the job ran on).
func TestSSHDKilledMidRun(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s")
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "2s", "--reconnect-budget", "4s", e.Plan)
	e.WaitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "run") == rundir.Running })
	time.Sleep(6 * time.Second)
	const load2 = 4 // lab host index of load2
	if err := e.Lab.Kill(load2); err != nil {
		t.Fatal(err)
	}
	code := e.Wait(2 * time.Minute)
	if code != e2e.ExitTransport {
		t.Errorf("exit %d after losing a host past the budget, want %d (transport)", code, e2e.ExitTransport)
	}
	out := e.Logs.String()
	if !strings.Contains(out, "stage run: host load2: run TPC-C") || !strings.Contains(out, "unreachable since") || !strings.Contains(out, "host load2 unreachable since") {
		t.Errorf("the failure does not name the stage, host and step, or the redials were not shown:\n%s", e2e.LastN(out, 20))
	}
	if err := e.Lab.Restart(load2); err != nil {
		t.Fatal(err)
	}
	e.Start("resume", "--start-lead", "2s", e.RunDir())
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("resume exited %d", code)
	}
	e.CheckResult(e.RunDir())
}

// TestBlackholeInRunStage is the demo plan with one workload host's link
// black-holed from the middle of the measured run until the 15 s job has
// finished on the host (its exit record; the test reads the host's files
// directly) and 2 s more (keepalives at 1 s notice the hole within
// seconds): the job finishes while the host is away. The run redials, says so on the console and in status, finds the
// job finished by its name, shows the rest of its log (the lines written
// while the host was away) and exits 0 with both workload hosts'
// histograms merged. (The same fault with --reconnect-budget 0 ends the
// run with exit 10: see TestSSHDKilledMidRun and the runner's tests for
// the failing side.)
func TestBlackholeInRunStage(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s", e2e.PlanOpts{Stages: "install, start, init, configure, import, run, collect, merge", SSH: "  keepalive: 1s\n", Faults: true})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "2s", e.Plan)
	e.WaitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "run") == rundir.Running })
	e.RunningJob("load2")
	time.Sleep(6 * time.Second) // past the start lead (2s) and the ramp (2s): inside the measured window
	const load2 = 4
	// Until Heal, bounded below: a fixed 60 s hole spent ~45 s after the
	// job's end waiting for nothing.
	e.Lab.Proxy(load2).Blackhole(0)
	holed := time.Now()
	e.WaitFor("load2 reported unreachable", 20*time.Second, func(s *rundir.State) bool {
		h := e2e.HostState(s, "run", "load2")
		return h != nil && h.Unreachable != nil
	})
	status, err := exec.Command(e.Bin, "status", e.RunDir()).CombinedOutput()
	if err != nil || !strings.Contains(string(status), "host load2 unreachable since") || !strings.Contains(string(status), "budget left") {
		t.Errorf("status during the outage: %v\n%s", err, status)
	}
	e.JobExited("load2", "run", 2*time.Minute)
	time.Sleep(2 * time.Second) // the orchestrator, still cut off, does not see the end
	e.Lab.Proxy(load2).Heal()
	t.Logf("the job ended while the host was away; the link healed %s after the black hole began", time.Since(holed).Round(time.Second))
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d with a host black-holed for 60s", code)
	}
	t.Logf("the run ended %s after the black hole began", time.Since(holed).Round(time.Second))
	out := e2e.StageOutput(e.OutputLog(e.RunDir()), "run")
	t.Logf("redials and re-attaches:\n%s", e2e.FaultLines(out))
	for _, want := range []string{"host load2 unreachable since", "host load2 reachable again after", "load2: job run.", "already finished (exit 0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console lacks %q:\n%s", want, e2e.LastN(out, 40))
		}
	}
	// The job's whole log reached the console, its last lines (written
	// while the host was away) after the re-attach found it finished.
	logs, _ := filepath.Glob(filepath.Join(e.Home, e.Prefix, "load2", "jobs", "run.*.log"))
	if len(logs) != 1 {
		t.Fatalf("load2's run job logs: %v", logs)
	}
	jobLog, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(jobLog), "\n"), "\n")
	finished := strings.Index(out, "already finished (exit 0)")
	for _, l := range lines {
		if !strings.Contains(out, "load2 | "+l+"\n") {
			t.Errorf("the console lacks load2's job line %q", l)
		}
	}
	if last := "load2 | " + lines[len(lines)-1] + "\n"; finished < 0 || !strings.Contains(out[finished:], last) {
		t.Errorf("the job's last line %q was not shown after the re-attach found the job finished:\n%s", last, e2e.LastN(out, 40))
	}
	r := e.CheckResult(e.RunDir())
	hosts := map[string]bool{}
	for _, a := range r.Audit {
		hosts[a.Host] = true
	}
	if !hosts["load1"] || !hosts["load2"] {
		t.Errorf("the merged result lacks a workload host: audits of %v", hosts)
	}
	for _, f := range []string{"results/load1/workload1.histogram.ndjson", "results/load2/workload2.histogram.ndjson"} {
		if st, err := os.Stat(filepath.Join(e.RunDir(), f)); err != nil || st.Size() == 0 {
			t.Errorf("histogram %s not collected: %v", f, err)
		}
	}
}

// TestInterruptThenResume: Ctrl-C (SIGINT) during the run exits 130 and
// says how to go on; the detached jobs keep running, and resume finishes.
func TestInterruptThenResume(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "10s")
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	e.WaitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "run") == rundir.Running })
	time.Sleep(3 * time.Second)
	if err := e.Proc.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := e.Wait(time.Minute); code != e2e.ExitInterrupted {
		t.Errorf("exit %d after SIGINT, want %d", code, e2e.ExitInterrupted)
	}
	if !strings.Contains(e.Logs.String(), "finish it with: benchrig resume") {
		t.Errorf("no resume hint after the interrupt:\n%s", e2e.LastN(e.Logs.String(), 10))
	}
	e.Start("resume", "--start-lead", "1s", e.RunDir())
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("resume exited %d", code)
	}
	e.CheckResult(e.RunDir())
}

// TestResumeRefusesChangedPlanAndLiveRun: a resume of a run that another
// process still drives is refused naming that process's pid; a resume of
// a run whose plan copy changed is refused with what changed, and goes on
// with --force.
func TestResumeRefusesChangedPlanAndLiveRun(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "15s", e2e.PlanOpts{Stages: "install"})
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(3 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.RunDir()

	release, err := rundir.Lock(runDir) // this test process is the live run
	if err != nil {
		t.Fatal(err)
	}
	e.Logs.Reset()
	e.Start("resume", runDir)
	if code := e.Wait(time.Minute); code != e2e.ExitUsage || !strings.Contains(e.Logs.String(), fmt.Sprintf("in use by benchrig pid %d", os.Getpid())) {
		t.Errorf("resume of a locked run: exit %d, want %d naming pid %d:\n%s", code, e2e.ExitUsage, os.Getpid(), e.Logs.String())
	}
	release()

	planCopy := filepath.Join(runDir, "plan.yaml")
	data, err := os.ReadFile(planCopy)
	if err != nil {
		t.Fatal(err)
	}
	// The same shape (hosts, stages, step counts), other commands.
	changed := strings.Replace(string(data), e.Prefix+"/db[1-3]", e.Prefix+"/other[1-3]", 1)
	if changed == string(data) {
		t.Fatal("the plan edit changed nothing")
	}
	if err := os.WriteFile(planCopy, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Logs.Reset()
	e.Start("resume", runDir)
	out := func() string { return e.Logs.String() }
	if code := e.Wait(time.Minute); code != e2e.ExitUsage || !strings.Contains(out(), "plan.yaml has sha256") ||
		!strings.Contains(out(), "stage install, hosts db1, db2, db3: finished step") || !strings.Contains(out(), "--force") {
		t.Errorf("resume of a changed plan: exit %d, want %d with a summary:\n%s", code, e2e.ExitUsage, out())
	}
	e.Logs.Reset()
	e.Start("resume", "--force", runDir)
	if code := e.Wait(2 * time.Minute); code != 0 || !strings.Contains(out(), "resuming with --force") {
		t.Errorf("resume --force: exit %d:\n%s", code, out())
	}
	e.Logs.Reset()
	e.Start("resume", runDir) // the state now describes the new plan
	if code := e.Wait(2 * time.Minute); code != 0 {
		t.Errorf("resume after --force: exit %d:\n%s", code, out())
	}
}

// TestResumeAfterJobSIGKILL kills the detached measured run on load1 with
// SIGKILL mid-window, as kill -9 of its process group or a host restart
// would (no exit record is left), while load2 runs on. The dead job is
// not started again alone (its window would not be load2's): the run goes
// on through collect and merge, which gather what load1 wrote until its
// death and mark the merged result incomplete; the run exits 40 with one
// message naming host, stage, step, reason and how to measure again;
// report.md opens with the INCOMPLETE banner and check-result refuses the
// run (40). `resume --from run` then measures again on both hosts and the
// result is complete.
func TestResumeAfterJobSIGKILL(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "8s", e2e.PlanOpts{Stages: "install, start, init, configure, import, run, collect, merge"})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	e.WaitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "run") == rundir.Running })
	load1 := e.RunningJob("load1")
	e.RunningJob("load2")
	time.Sleep(6 * time.Second) // start lead 1s, ramp 2s, then 3s into the 8s window
	if err := syscall.Kill(-load1, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 of job group %d: %v", load1, err)
	}
	if code := e.Wait(3 * time.Minute); code != e2e.ExitIncomplete {
		t.Fatalf("the run with a killed measured run exited %d, want %d (incomplete):\n%s", code, e2e.ExitIncomplete, e2e.LastN(e.Logs.String(), 30))
	}
	runDir := e.RunDir()
	out := e.Logs.String()
	t.Logf("the run ended:\n%s", e2e.LastN(out, 6))
	for _, want := range []string{
		"load1: job run.", "vanished without exit status",
		"stage run: host load1: run TPC-C: job run.", "the merged result is marked incomplete",
		"measure again on every workload host with: benchrig resume --from run " + runDir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run did not say %q:\n%s", want, e2e.LastN(out, 30))
		}
	}
	if strings.Contains(out, "starting it again") {
		t.Errorf("the dead measured run was started again alone:\n%s", e2e.LastN(out, 30))
	}
	st, err := rundir.ReadState(filepath.Join(runDir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Stages {
		for _, h := range s.Hosts {
			if dead := s.Name == "run" && h.Host == "load1"; (h.Died != nil) != dead {
				t.Errorf("state.json: stage %s host %s died %+v", s.Name, h.Host, h.Died)
			}
		}
		if s.Status != rundir.Done {
			t.Errorf("stage %s %s: every stage runs to the end", s.Name, s.Status)
		}
	}
	// load2 ran its whole window; load1's histogram holds what it wrote
	// before its death.
	md, _ := os.ReadFile(filepath.Join(runDir, "report.md"))
	if !strings.HasPrefix(string(md), "# benchrig report: e2e\n\n> **INCOMPLETE:**") || !strings.Contains(string(md), "> - load1 vanished without exit status") {
		t.Errorf("report.md does not open with the INCOMPLETE banner:\n%s", e2e.LastN(string(md), 200))
	}
	r := e2e.ReadReport(t, runDir)
	if r.Schema != report.SchemaV2 || r.Result == nil || len(r.Result.Incomplete) != 1 || r.Result.Pass {
		t.Fatalf("report.json: schema %s, result %+v: want v2, failing, one incomplete host", r.Schema, r.Result)
	}
	dead := r.Result.Incomplete[0]
	t.Logf("incomplete: %s", dead.Text())
	if dead.Host != "load1" || dead.CoveredPercent >= 90 || dead.WindowSeconds < 7 || dead.WindowSeconds > 10 {
		t.Errorf("incomplete host %+v: want load1, covering part of the 8s window", dead)
	}
	var merged struct {
		Schema     string
		Incomplete []struct{ Host, Reason string }
	}
	data, err := os.ReadFile(filepath.Join(runDir, "results", "merged.result.json"))
	if err != nil || json.Unmarshal(data, &merged) != nil || merged.Schema != "benchrig.result/v2" || len(merged.Incomplete) != 1 || merged.Incomplete[0].Host != "load1" {
		t.Errorf("merged.result.json is not marked incomplete (%v):\n%s", err, data)
	}
	if _, err := os.Stat(filepath.Join(runDir, "results", "load1", "workload1.result.json")); err == nil {
		t.Error("load1's run result exists: its job did not die")
	}
	check, err := exec.Command(e.Bin, "check-result", "--min-tpmc", "1", runDir).CombinedOutput()
	if code := e2e.ExitCodeOf(err); code != e2e.ExitIncomplete || !strings.Contains(string(check), "INCOMPLETE, not checked: load1 vanished without exit status") {
		t.Errorf("check-result of the incomplete run: exit %d\n%s", code, check)
	}

	e.Logs.Reset()
	e.Start("resume", "--from", "run", "--start-lead", "1s", runDir)
	if code := e.Wait(3 * time.Minute); code != 0 {
		t.Fatalf("resume --from run exited %d:\n%s", code, e2e.LastN(e.Logs.String(), 30))
	}
	if !strings.Contains(e.Logs.String(), "run complete") {
		t.Errorf("resume output:\n%s", e2e.LastN(e.Logs.String(), 30))
	}
	r = e.CheckResult(runDir)
	if r.Schema != report.Schema || len(r.Result.Incomplete) != 0 || len(r.Result.Hosts) != 2 {
		t.Errorf("after resume --from run: schema %s, incomplete %+v, %d host results; want a complete result of both hosts", r.Schema, r.Result.Incomplete, len(r.Result.Hosts))
	}
	if _, err := os.Stat(filepath.Join(runDir, "results", "load1", "workload1.died.json")); err == nil {
		t.Error("load1's died record outlived the new measurement")
	}
	if md, _ := os.ReadFile(filepath.Join(runDir, "report.md")); strings.Contains(string(md), "INCOMPLETE") {
		t.Error("report.md still says INCOMPLETE after the new measurement")
	}
	if check, err := exec.Command(e.Bin, "check-result", "--min-tpmc", "1", runDir).CombinedOutput(); err != nil {
		t.Errorf("check-result after resume --from run: %v\n%s", err, check)
	}
}
