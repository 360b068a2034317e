package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// The end-to-end tests run plans/local.yaml's topology for real: five
// OpenSSH sshd on 127.0.0.2-6 (three PostgreSQL nodes, two workload
// hosts), the benchrig binary uploaded to the workload hosts, and the
// orchestrator as a separate process so that it can be SIGKILLed.

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// benchrigBinary builds this command once per test process.
func benchrigBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchrig-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "benchrig")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// e2e is one end-to-end topology: the lab, the plan and its run directory.
type e2e struct {
	t        *testing.T
	bin      string
	lab      *sshtest.Lab
	plan     string
	runs     string
	port     int
	prefix   string // work directory of the hosts, under the login user's home
	home     string
	pgbin    string
	logs     *bytes.Buffer
	proc     *exec.Cmd
	procDone chan error
}

// planOpts change the e2e plan: the stages, and extra lines for the tpcc
// and preflight sections.
type planOpts struct {
	stages, tpcc, preflight string
	top                     string // top-level lines (benchmark:, crud:)
	ssh                     string // more lines of the ssh: section
	faults                  bool   // every host behind a fault proxy (sshtest.WithProxies)
}

func newE2E(t *testing.T, duration string, opts ...planOpts) *e2e {
	o := planOpts{stages: "install, start, init, configure, import, partition, swap, run, collect, merge"}
	for _, x := range opts {
		if x.stages != "" {
			o.stages = x.stages
		}
		o.tpcc += x.tpcc
		o.preflight += x.preflight + x.top
		o.ssh += x.ssh
		o.faults = o.faults || x.faults
	}
	e := newE2EBase(t)
	var labOpts []sshtest.Option
	if o.faults {
		labOpts = append(labOpts, sshtest.WithProxies())
	}
	e.lab = sshtest.StartT(t, 5, labOpts...)
	u, err := user.Lookup(e.lab.User())
	if err != nil {
		t.Fatal(err)
	}
	e.home = u.HomeDir
	e.prefix = fmt.Sprintf("benchrig-e2e-%d", time.Now().UnixNano()%1e9)
	e.port = freePort(t, "127.0.0.2", "127.0.0.3", "127.0.0.4")
	dir := t.TempDir()
	cfg := filepath.Join(e.lab.Dir(), "ssh_config")
	if err := e.lab.WriteSSHConfig(cfg, "lab-", []string{"db1", "db2", "db3", "load1", "load2"}); err != nil {
		t.Fatal(err)
	}
	plan := fmt.Sprintf(`version: 1
name: e2e
flavor: postgres
ssh:
  config: %s
  known_hosts: %s
%snodes:
  - name: db[1-3]
    ssh: lab-db[1-3]
    addr: 127.0.0.[2-4]
    sql_port: %d
    rack: "[0-2]"
    dir: %s/db[1-3]
workload:
  - name: load[1-2]
    ssh: lab-load[1-2]
    dir: %s/load[1-2]
binaries:
  database: {host: %s}
  swap: {host: %s}
settings:
  preset: postgres-tpcc
preflight:
  fio_size: 16M
  fio_runtime: 1s
%stpcc:
  warehouses: 2
  partitions: 2
  split_load: true
  wait: "0.1"
  ramp: 2s
  duration: %s
%sstages: [%s]
`, cfg, e.lab.KnownHostsPath(), o.ssh, e.port, e.prefix, e.prefix, e.pgbin, e.pgbin, o.preflight, duration, o.tpcc, o.stages)
	e.plan = filepath.Join(dir, "e2e.yaml")
	if err := os.WriteFile(e.plan, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	e.runs = filepath.Join(dir, "runs")
	t.Cleanup(e.cleanup)
	return e
}

// newE2EBase skips the test under -short or without PostgreSQL's server
// programs, and builds benchrig: an e2e without lab or plan yet.
func newE2EBase(t *testing.T) *e2e {
	if testing.Short() {
		t.Skip("end-to-end test (-short)")
	}
	pgbins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(pgbins) == 0 {
		t.Skip("PostgreSQL server programs not installed (run .ci/setup)")
	}
	sort.Strings(pgbins)
	return &e2e{t: t, bin: benchrigBinary(t), pgbin: filepath.Dir(pgbins[len(pgbins)-1]), logs: &bytes.Buffer{}}
}

// asLoginUser runs a command as the lab's login user (the PostgreSQL
// servers and their files belong to it).
func (e *e2e) asLoginUser(args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", e.lab.User(), "--"}, args...)...)
	}
	return exec.Command(args[0], args[1:]...)
}

func (e *e2e) cleanup() {
	for i := 1; i <= 3; i++ {
		data := filepath.Join(e.home, e.prefix, fmt.Sprintf("db%d", i), "pgdata")
		_ = e.asLoginUser(e.pgbin+"/pg_ctl", "-D", data, "-m", "immediate", "stop").Run()
	}
	if !e.t.Failed() {
		_ = e.asLoginUser("rm", "-rf", filepath.Join(e.home, e.prefix)).Run()
	} else {
		e.t.Logf("orchestrator output:\n%s", lastN(e.logs.String(), 80))
	}
}

func lastN(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort finds a TCP port free on every address.
func freePort(t *testing.T, addrs ...string) int {
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", addrs[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ok := true
		for _, a := range addrs[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return port
		}
	}
	t.Fatal("no free port on every address")
	return 0
}

// start runs benchrig with args in the background.
func (e *e2e) start(args ...string) {
	e.t.Helper()
	e.proc = exec.Command(e.bin, args...)
	e.proc.Stdout, e.proc.Stderr = e.logs, e.logs
	if err := e.proc.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.procDone = make(chan error, 1)
	go func() { e.procDone <- e.proc.Wait() }()
}

// wait waits for the background benchrig and returns its exit code.
func (e *e2e) wait(timeout time.Duration) int {
	e.t.Helper()
	select {
	case err := <-e.procDone:
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		e.t.Fatal(err)
	case <-time.After(timeout):
		_ = e.proc.Process.Kill()
		e.t.Fatalf("benchrig %s did not finish within %s", strings.Join(e.proc.Args[1:], " "), timeout)
	}
	return -1
}

func (e *e2e) runDir() string {
	dirs, _ := filepath.Glob(filepath.Join(e.runs, "e2e-*"))
	if len(dirs) != 1 {
		e.t.Fatalf("want one run directory, got %v", dirs)
	}
	return dirs[0]
}

// waitFor polls the run state until cond holds.
func (e *e2e) waitFor(what string, timeout time.Duration, cond func(*rundir.State) bool) *rundir.State {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob(filepath.Join(e.runs, "e2e-*", "state.json"))
		if len(dirs) == 1 {
			if st, err := rundir.ReadState(dirs[0]); err == nil && cond(st) {
				return st
			}
		}
		select {
		case err := <-e.procDone:
			e.t.Fatalf("benchrig exited (%v) before %s", err, what)
		case <-time.After(200 * time.Millisecond):
		}
	}
	e.t.Fatalf("timed out waiting for %s", what)
	return nil
}

func stageStatus(st *rundir.State, name string) string {
	for _, s := range st.Stages {
		if s.Name == name {
			return s.Status
		}
	}
	return ""
}

func doneStages(st *rundir.State) []string {
	var out []string
	for _, s := range st.Stages {
		if s.Status == rundir.Done {
			out = append(out, s.Name)
		}
	}
	return out
}

// checkResult verifies what a finished run must leave: a merged tpmC,
// the report files, and a database that passes the consistency checks.
func (e *e2e) checkResult(runDir string) *report.Report {
	e.t.Helper()
	for _, f := range []string{"report.md", "report.json", "tpmc.svg", "latency.svg", "state.json", "steps.log", "plan.yaml"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			e.t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(runDir, "report.json"))
	if err != nil {
		e.t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		e.t.Fatal(err)
	}
	if r.Result == nil || r.Result.TpmC <= 0 || r.Result.Efficiency <= 0 {
		e.t.Fatalf("report has no merged result: %+v", r.Result)
	}
	if len(r.Result.Ops) != 5 || len(r.Clock) != 2 || r.StartSkew == nil || len(r.Audit) != 2 {
		e.t.Errorf("report incomplete: %d ops, %d clocks, skew %v, %d audits", len(r.Result.Ops), len(r.Clock), r.StartSkew, len(r.Audit))
	}
	url := fmt.Sprintf("postgres://%s@127.0.0.2:%d/tpcc?sslmode=disable", e.lab.User(), e.port)
	out, err := exec.Command(e.bin, "tpcc", "check", "--warehouses", "2", url).CombinedOutput()
	if err != nil {
		e.t.Fatalf("tpcc check after the run: %v\n%s", err, out)
	}
	return &r
}

// journal is the run's steps.log, or what a dry-run would write, as sorted
// lines with the start instant normalised.
var startAtRE = regexp.MustCompile(`--start-at=\S+`)

func sortedJournal(text string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		lines = append(lines, startAtRE.ReplaceAllString(l, "--start-at=T"))
	}
	sort.Strings(lines)
	return lines
}

func (e *e2e) dryRunJournal() string {
	e.t.Helper()
	p, err := orchestrator.LoadPlan(e.plan)
	if err != nil {
		e.t.Fatal(err)
	}
	compiled, err := stages.Compile(p, stages.Options{DriverPath: e.bin})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := orchestrator.PinUploads(compiled); err != nil {
		e.t.Fatal(err)
	}
	var j bytes.Buffer
	r := &runner.Runner{Exec: remote.NewRecorder(), Observers: []runner.Observer{&rundir.Journal{W: &j}},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := r.Run(context.Background(), compiled); err != nil {
		e.t.Fatal(err)
	}
	return j.String()
}

func (e *e2e) journalCounts(runDir string) map[string]int {
	executed, err := os.ReadFile(filepath.Join(runDir, "steps.log"))
	if err != nil {
		e.t.Fatal(err)
	}
	return countByStage(sortedJournal(string(executed)))
}

func countByStage(lines []string) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		stage, _, _ := strings.Cut(l, "\t")
		n[stage]++
	}
	return n
}

// TestEndToEndLocal runs every stage of the local topology and checks the
// result, the report, the database and that the steps executed are the
// steps a dry-run lists.
func TestEndToEndLocal(t *testing.T) {
	e := newE2E(t, "15s")
	e.start("run", "--runs-dir", e.runs, "--start-lead", "2s", e.plan)
	if code := e.wait(6 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.runDir()
	e.checkResult(runDir)
	// The two hosts started from the ready barrier: the runner said so
	// once both were ready, and the report shows their warm-ups' spread.
	if out := e.logs.String(); !strings.Contains(out, "start barrier: 2 of 2 hosts ready") {
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
	got, want := sortedJournal(strings.ReplaceAll(string(executed), "."+filepath.Base(runDir)+".", ".")), sortedJournal(e.dryRunJournal())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("executed steps differ from the dry-run's:\n--- dry-run\n%s\n--- executed\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
	out, err := exec.Command(e.bin, "status", runDir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "merge      done    1/1") {
		t.Errorf("status: %v\n%s", err, out)
	}
	checkConsole(t, e.logs.String(), runDir)
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
	e := newE2E(t, "15s")
	want := countByStage(sortedJournal(e.dryRunJournal()))
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
	args := []string{"run", "--runs-dir", e.runs, "--start-lead", "2s", e.plan}
	var journalAt int64
	for _, k := range kills {
		var st *rundir.State
		for try := 1; ; try++ {
			e.start(args...)
			journalAt = e.killInStage(k.stage, journalAt, k.after)
			var err error
			if st, err = rundir.ReadState(filepath.Join(e.runDir(), "state.json")); err != nil {
				t.Fatal(err)
			}
			if stageStatus(st, k.stage) != rundir.Done {
				break
			}
			// A loaded machine let the stage finish before the kill
			// landed: run it again (and the stages after it) and kill
			// again.
			if try == 3 {
				t.Fatalf("the kill in stage %s came after it finished, %d times: the stage was not interrupted", k.stage, try)
			}
			t.Logf("the kill in stage %s came after it finished; running it again (resume --from %s)", k.stage, k.stage)
			args = []string{"resume", "--from", k.stage, "--start-lead", "2s", e.runDir()}
		}
		got = append(got, killed{k.stage, doneStages(st), e.journalCounts(e.runDir())})
		args = []string{"resume", "--start-lead", "2s", e.runDir()}
	}
	e.start(args...)
	if code := e.wait(5 * time.Minute); code != 0 {
		t.Fatalf("final resume exited %d", code)
	}
	runDir := e.runDir()
	e.checkResult(runDir)

	final := e.journalCounts(runDir)
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
	out := e.outputLog(runDir)
	t.Logf("stages, redials and re-attaches:\n%s", faultLines(out))
	if !strings.Contains(stageOutput(out, "run"), "re-attaching to job run") && !strings.Contains(stageOutput(out, "run"), "already finished") {
		t.Errorf("the resume after the kill in the run stage did not re-attach to the run jobs:\n%s", lastN(stageOutput(out, "run"), 30))
	}
}

// killInStage waits until the running benchrig has started a step of
// stage (its line in steps.log past offset from), waits after, SIGKILLs
// it and waits for it to end. It returns steps.log's size then.
func (e *e2e) killInStage(stage string, from int64, after time.Duration) int64 {
	e.t.Helper()
	prefix := []byte(stage + "\t")
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if time.Now().After(deadline) {
			e.t.Fatalf("no step of stage %s started", stage)
		}
		select {
		case err := <-e.procDone:
			e.t.Fatalf("benchrig exited (%v) before stage %s", err, stage)
		case <-time.After(2 * time.Millisecond):
		}
		logs, _ := filepath.Glob(filepath.Join(e.runs, "e2e-*", rundir.StepsLog))
		if len(logs) != 1 {
			continue
		}
		data, err := os.ReadFile(logs[0])
		if err != nil || int64(len(data)) <= from {
			continue
		}
		lines := bytes.Split(data[from:], []byte("\n"))
		started := false
		for _, l := range lines {
			started = started || bytes.HasPrefix(l, prefix)
		}
		if started {
			break
		}
	}
	time.Sleep(after)
	// An error is a process that already ended: the check of the stage's
	// state after the kill says what it finished.
	_ = e.proc.Process.Kill()
	e.wait(time.Minute)
	st, err := os.Stat(filepath.Join(e.runDir(), rundir.StepsLog))
	if err != nil {
		e.t.Fatal(err)
	}
	return st.Size()
}

// TestSSHDKilledMidRun kills one workload host's sshd (and its sessions)
// during the run and keeps it away past the reconnect budget: the run
// redials for the budget, then fails with exit 10 naming host, stage and
// step; resume, once the host is back, finishes the run (the job ran on).
func TestSSHDKilledMidRun(t *testing.T) {
	e := newE2E(t, "15s")
	e.start("run", "--runs-dir", e.runs, "--start-lead", "2s", "--reconnect-budget", "4s", e.plan)
	e.waitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "run") == rundir.Running })
	time.Sleep(6 * time.Second)
	const load2 = 4 // lab host index of load2
	if err := e.lab.Kill(load2); err != nil {
		t.Fatal(err)
	}
	code := e.wait(2 * time.Minute)
	if code != exitTransport {
		t.Errorf("exit %d after losing a host past the budget, want %d (transport)", code, exitTransport)
	}
	out := e.logs.String()
	if !strings.Contains(out, "stage run: host load2: run TPC-C") || !strings.Contains(out, "unreachable since") || !strings.Contains(out, "host load2 unreachable since") {
		t.Errorf("the failure does not name the stage, host and step, or the redials were not shown:\n%s", lastN(out, 20))
	}
	if err := e.lab.Restart(load2); err != nil {
		t.Fatal(err)
	}
	e.start("resume", "--start-lead", "2s", e.runDir())
	if code := e.wait(5 * time.Minute); code != 0 {
		t.Fatalf("resume exited %d", code)
	}
	e.checkResult(e.runDir())
}

// TestBlackholeInRunStage is the demo plan with one workload host's link
// black-holed for 60 s in the middle of the measured run (keepalives at
// 1 s notice it within seconds): the 15 s job finishes while the host is
// away. The run redials, says so on the console and in status, finds the
// job finished by its name, shows the rest of its log (the lines written
// while the host was away) and exits 0 with both workload hosts'
// histograms merged. (The same fault with --reconnect-budget 0 ends the
// run with exit 10: see TestSSHDKilledMidRun and the runner's tests for
// the failing side.)
func TestBlackholeInRunStage(t *testing.T) {
	e := newE2E(t, "15s", planOpts{stages: "install, start, init, configure, import, run, collect, merge", ssh: "  keepalive: 1s\n", faults: true})
	e.start("run", "--runs-dir", e.runs, "--start-lead", "2s", e.plan)
	e.waitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "run") == rundir.Running })
	e.runningJob("load2")
	time.Sleep(6 * time.Second) // past the start lead (2s) and the ramp (2s): inside the measured window
	const load2 = 4
	e.lab.Proxy(load2).Blackhole(60 * time.Second)
	holed := time.Now()
	e.waitFor("load2 reported unreachable", 20*time.Second, func(s *rundir.State) bool {
		h := hostState(s, "run", "load2")
		return h != nil && h.Unreachable != nil
	})
	status, err := exec.Command(e.bin, "status", e.runDir()).CombinedOutput()
	if err != nil || !strings.Contains(string(status), "host load2 unreachable since") || !strings.Contains(string(status), "budget left") {
		t.Errorf("status during the outage: %v\n%s", err, status)
	}
	if code := e.wait(5 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d with a host black-holed for 60s", code)
	}
	t.Logf("the run ended %s after the black hole began", time.Since(holed).Round(time.Second))
	out := stageOutput(e.outputLog(e.runDir()), "run")
	t.Logf("redials and re-attaches:\n%s", faultLines(out))
	for _, want := range []string{"host load2 unreachable since", "host load2 reachable again after", "load2: job run.", "already finished (exit 0)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the console lacks %q:\n%s", want, lastN(out, 40))
		}
	}
	// The job's whole log reached the console, its last lines (written
	// while the host was away) after the re-attach found it finished.
	logs, _ := filepath.Glob(filepath.Join(e.home, e.prefix, "load2", "jobs", "run.*.log"))
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
		t.Errorf("the job's last line %q was not shown after the re-attach found the job finished:\n%s", last, lastN(out, 40))
	}
	r := e.checkResult(e.runDir())
	hosts := map[string]bool{}
	for _, a := range r.Audit {
		hosts[a.Host] = true
	}
	if !hosts["load1"] || !hosts["load2"] {
		t.Errorf("the merged result lacks a workload host: audits of %v", hosts)
	}
	for _, f := range []string{"results/load1/workload1.histogram.ndjson", "results/load2/workload2.histogram.ndjson"} {
		if st, err := os.Stat(filepath.Join(e.runDir(), f)); err != nil || st.Size() == 0 {
			t.Errorf("histogram %s not collected: %v", f, err)
		}
	}
}

// TestPreflight runs the preflight stage on the lab: one table with every
// host, a disk benchmark where fio is installed; an open-files limit no
// host can grant stops the run with a failed check.
func TestPreflight(t *testing.T) {
	e := newE2E(t, "15s", planOpts{stages: "preflight, install"})
	e.start("run", "--runs-dir", e.runs, e.plan)
	if code := e.wait(3 * time.Minute); code != 0 {
		t.Fatalf("preflight on healthy hosts exited %d", code)
	}
	// The console shows only the rows not ok and a summary; the whole
	// table, every host's row, is in output.log.
	if !strings.Contains(e.logs.String(), "preflight: 5 of 5 hosts ok") {
		t.Errorf("the console lacks the preflight summary:\n%s", e.logs.String())
	}
	log, err := os.ReadFile(filepath.Join(e.runDir(), "output.log"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(log)
	for _, want := range []string{"HOST   OS/ARCH", "db1 ", "load2 ", fmt.Sprintf("%d free", e.port)} {
		if !strings.Contains(out, want) {
			t.Errorf("preflight table lacks %q:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("fio"); err == nil && !strings.Contains(out, "IOPS") {
		t.Errorf("fio is installed but the table has no disk benchmark:\n%s", out)
	}
	// The probes' results, as the report reads them.
	for _, f := range []string{"results/db1/fio.json", "results/load2/fio.json", "clock.json"} {
		if data, err := os.ReadFile(filepath.Join(e.runDir(), f)); err != nil || !strings.Contains(string(data), `"schema": "benchrig.result/v1"`) {
			t.Errorf("%s: %v\n%s", f, err, data)
		}
	}

	// Each load host opens 120 connections to the primary: the start
	// stage would size max_connections for them (245), so the primary
	// passes; the impossible ulimit fails both load hosts.
	bad := newE2E(t, "15s", planOpts{stages: "preflight, install", tpcc: "  ulimit: 1073741824\n  conns: 120\n"})
	bad.start("run", "--runs-dir", bad.runs, bad.plan)
	if code := bad.wait(3 * time.Minute); code != exitCheck {
		t.Errorf("impossible ulimit: exit %d, want %d", code, exitCheck)
	}
	out = bad.logs.String()
	if !strings.Contains(out, "cannot raise the open-files limit") || !strings.Contains(out, "preflight failed on 2 of 5 hosts") {
		t.Errorf("the failure does not say what and where:\n%s", out)
	}
	// The primary's row passes, so only output.log has it (the console
	// shows the rows not ok).
	if log, err := os.ReadFile(filepath.Join(bad.runDir(), "output.log")); err != nil || !strings.Contains(string(log), "gets 240 of 245") {
		t.Errorf("output.log lacks the primary's connections (gets 240 of 245): %v\n%s", err, log)
	}
	if strings.Contains(out, "== stage install") {
		t.Error("the run went on to install after a failed preflight")
	}
}

// TestRepeatAndSweep: repeat: 3 gives three measured runs and their
// statistics; then, on the same loaded cluster, a 3-point sweep of
// --workers gives the table and the plot.
func TestRepeatAndSweep(t *testing.T) {
	e := newE2E(t, "4s", planOpts{tpcc: "  repeat: 3\n"})
	e.start("run", "--runs-dir", e.runs, "--start-lead", "1s", e.plan)
	if code := e.wait(6 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	r := readReport(t, e.runDir())
	if len(r.Rounds) != 3 || len(r.Points) != 1 || r.Points[0].Runs != 3 {
		t.Fatalf("repeat: 3 gave %d runs, %d points", len(r.Rounds), len(r.Points))
	}
	pt := r.Points[0]
	if pt.TpmC.Mean <= 0 || pt.TpmC.Min > pt.TpmC.Mean || pt.TpmC.Max < pt.TpmC.Mean {
		t.Errorf("statistics: %+v", pt.TpmC)
	}

	plan, err := os.ReadFile(e.plan)
	if err != nil {
		t.Fatal(err)
	}
	sweep := strings.NewReplacer("  repeat: 3\n", "", `  wait: "0.1"`, "  wait: \"false\"\n  sweep: {flag: workers, values: [1, 2, 4]}").Replace(string(plan))
	sweepPlan := filepath.Join(filepath.Dir(e.plan), "sweep.yaml")
	if err := os.WriteFile(sweepPlan, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	runs2 := filepath.Join(filepath.Dir(e.plan), "runs2")
	e.start("run", "--runs-dir", runs2, "--start-lead", "1s", "--from", "run", sweepPlan)
	if code := e.wait(6 * time.Minute); code != 0 {
		t.Fatalf("sweep exited %d", code)
	}
	dirs, _ := filepath.Glob(filepath.Join(runs2, "e2e-*"))
	if len(dirs) != 1 {
		t.Fatalf("sweep run directories: %v", dirs)
	}
	r = readReport(t, dirs[0])
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

func readReport(t *testing.T, runDir string) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestCrudPlan runs the seed's CRUD benchmark from a plan's run stage on
// both workload hosts, collects their results and merges them.
func TestCrudPlan(t *testing.T) {
	e := newE2E(t, "15s", planOpts{
		stages: "install, start, init, run, collect, merge",
		top:    "benchmark: crud\ncrud: {goroutines: 4, records: 50, select_repeat: 2, many_repeat: 5}\n",
	})
	e.start("run", "--runs-dir", e.runs, e.plan)
	if code := e.wait(4 * time.Minute); code != 0 {
		t.Fatalf("crud plan exited %d", code)
	}
	out := e.logs.String()
	for _, want := range []string{`Ins Dur \(s\)`, `SelMany Q/s`, `local \|\s+load1\s`, `local \|\s+load2\s`, `local \|\s+all\s`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("merged crud table lacks %s:\n%s", want, lastN(out, 30))
		}
	}
	md, err := os.ReadFile(filepath.Join(e.runDir(), "report.md"))
	if err != nil || !strings.Contains(string(md), "Ins Dur (s)") {
		t.Errorf("report.md lacks the crud table: %v\n%s", err, md)
	}
}

// TestSearch runs a max-warehouse line search on the local topology: each
// iteration runs, collects, merges and checks; the report names the
// largest passing value and plots the tried values.
func TestSearch(t *testing.T) {
	e := newE2E(t, "4s", planOpts{
		stages: "install, start, init, configure, import, run",
		tpcc:   "  search: {min: 2, max: 3}\n",
	})
	// Each of the two partitions needs an active warehouse (validation
	// refuses a search below that), so the search runs over 2..3 of 3.
	data, err := os.ReadFile(e.plan)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.plan, bytes.Replace(data, []byte("  warehouses: 2\n"), []byte("  warehouses: 3\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	e.start("run", "--runs-dir", e.runs, "--start-lead", "1s", e.plan)
	if code := e.wait(6 * time.Minute); code != 0 {
		t.Fatalf("search exited %d", code)
	}
	out := e.logs.String()
	if !strings.Contains(out, "search: trying --active-warehouses=3") || !strings.Contains(out, "search: the largest passing --active-warehouses is") {
		t.Errorf("the search did not report its steps:\n%s", lastN(out, 30))
	}
	st, err := rundir.ReadState(filepath.Join(e.runDir(), "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var points []stages.SearchPoint
	for _, s := range st.Stages {
		points = append(points, s.Search...)
	}
	r := readReport(t, e.runDir())
	if len(points) == 0 || len(r.Points) != len(points) || r.Points[0].Flag != "active-warehouses" {
		t.Fatalf("state points %v, report points %+v", points, r.Points)
	}
	if best := r.MaxPassing; best != nil && *best != 2 && *best != 3 {
		t.Errorf("largest passing %d outside 2..3", *best)
	}
}

// TestInterruptThenResume: Ctrl-C (SIGINT) during the run exits 130 and
// says how to go on; the detached jobs keep running, and resume finishes.
func TestInterruptThenResume(t *testing.T) {
	e := newE2E(t, "10s")
	e.start("run", "--runs-dir", e.runs, "--start-lead", "1s", e.plan)
	e.waitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "run") == rundir.Running })
	time.Sleep(3 * time.Second)
	if err := e.proc.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := e.wait(time.Minute); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want %d", code, exitInterrupted)
	}
	if !strings.Contains(e.logs.String(), "finish it with: benchrig resume") {
		t.Errorf("no resume hint after the interrupt:\n%s", lastN(e.logs.String(), 10))
	}
	e.start("resume", "--start-lead", "1s", e.runDir())
	if code := e.wait(5 * time.Minute); code != 0 {
		t.Fatalf("resume exited %d", code)
	}
	e.checkResult(e.runDir())
}

// TestResumeRefusesChangedPlanAndLiveRun: a resume of a run that another
// process still drives is refused naming that process's pid; a resume of
// a run whose plan copy changed is refused with what changed, and goes on
// with --force.
func TestResumeRefusesChangedPlanAndLiveRun(t *testing.T) {
	e := newE2E(t, "15s", planOpts{stages: "install"})
	e.start("run", "--runs-dir", e.runs, e.plan)
	if code := e.wait(3 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.runDir()

	release, err := rundir.Lock(runDir) // this test process is the live run
	if err != nil {
		t.Fatal(err)
	}
	e.logs.Reset()
	e.start("resume", runDir)
	if code := e.wait(time.Minute); code != exitUsage || !strings.Contains(e.logs.String(), fmt.Sprintf("in use by benchrig pid %d", os.Getpid())) {
		t.Errorf("resume of a locked run: exit %d, want %d naming pid %d:\n%s", code, exitUsage, os.Getpid(), e.logs.String())
	}
	release()

	planCopy := filepath.Join(runDir, "plan.yaml")
	data, err := os.ReadFile(planCopy)
	if err != nil {
		t.Fatal(err)
	}
	// The same shape (hosts, stages, step counts), other commands.
	changed := strings.Replace(string(data), e.prefix+"/db[1-3]", e.prefix+"/other[1-3]", 1)
	if changed == string(data) {
		t.Fatal("the plan edit changed nothing")
	}
	if err := os.WriteFile(planCopy, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	e.logs.Reset()
	e.start("resume", runDir)
	out := func() string { return e.logs.String() }
	if code := e.wait(time.Minute); code != exitUsage || !strings.Contains(out(), "plan.yaml has sha256") ||
		!strings.Contains(out(), "stage install, hosts db1, db2, db3: finished step") || !strings.Contains(out(), "--force") {
		t.Errorf("resume of a changed plan: exit %d, want %d with a summary:\n%s", code, exitUsage, out())
	}
	e.logs.Reset()
	e.start("resume", "--force", runDir)
	if code := e.wait(2 * time.Minute); code != 0 || !strings.Contains(out(), "resuming with --force") {
		t.Errorf("resume --force: exit %d:\n%s", code, out())
	}
	e.logs.Reset()
	e.start("resume", runDir) // the state now describes the new plan
	if code := e.wait(2 * time.Minute); code != 0 {
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
	e := newE2E(t, "8s", planOpts{stages: "install, start, init, configure, import, run, collect, merge"})
	e.start("run", "--runs-dir", e.runs, "--start-lead", "1s", e.plan)
	e.waitFor("the run stage", 4*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "run") == rundir.Running })
	load1 := e.runningJob("load1")
	e.runningJob("load2")
	time.Sleep(6 * time.Second) // start lead 1s, ramp 2s, then 3s into the 8s window
	if err := syscall.Kill(-load1, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 of job group %d: %v", load1, err)
	}
	if code := e.wait(3 * time.Minute); code != exitIncomplete {
		t.Fatalf("the run with a killed measured run exited %d, want %d (incomplete):\n%s", code, exitIncomplete, lastN(e.logs.String(), 30))
	}
	runDir := e.runDir()
	out := e.logs.String()
	t.Logf("the run ended:\n%s", lastN(out, 6))
	for _, want := range []string{
		"load1: job run.", "vanished without exit status",
		"stage run: host load1: run TPC-C: job run.", "the merged result is marked incomplete",
		"measure again on every workload host with: benchrig resume --from run " + runDir,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the run did not say %q:\n%s", want, lastN(out, 30))
		}
	}
	if strings.Contains(out, "starting it again") {
		t.Errorf("the dead measured run was started again alone:\n%s", lastN(out, 30))
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
		t.Errorf("report.md does not open with the INCOMPLETE banner:\n%s", lastN(string(md), 200))
	}
	r := readReport(t, runDir)
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
	check, err := exec.Command(e.bin, "check-result", "--min-tpmc", "1", runDir).CombinedOutput()
	if code := exitCodeOf(err); code != exitIncomplete || !strings.Contains(string(check), "INCOMPLETE, not checked: load1 vanished without exit status") {
		t.Errorf("check-result of the incomplete run: exit %d\n%s", code, check)
	}

	e.logs.Reset()
	e.start("resume", "--from", "run", "--start-lead", "1s", runDir)
	if code := e.wait(3 * time.Minute); code != 0 {
		t.Fatalf("resume --from run exited %d:\n%s", code, lastN(e.logs.String(), 30))
	}
	if !strings.Contains(e.logs.String(), "run complete") {
		t.Errorf("resume output:\n%s", lastN(e.logs.String(), 30))
	}
	r = e.checkResult(runDir)
	if r.Schema != report.Schema || len(r.Result.Incomplete) != 0 || len(r.Result.Hosts) != 2 {
		t.Errorf("after resume --from run: schema %s, incomplete %+v, %d host results; want a complete result of both hosts", r.Schema, r.Result.Incomplete, len(r.Result.Hosts))
	}
	if _, err := os.Stat(filepath.Join(runDir, "results", "load1", "workload1.died.json")); err == nil {
		t.Error("load1's died record outlived the new measurement")
	}
	if md, _ := os.ReadFile(filepath.Join(runDir, "report.md")); strings.Contains(string(md), "INCOMPLETE") {
		t.Error("report.md still says INCOMPLETE after the new measurement")
	}
	if check, err := exec.Command(e.bin, "check-result", "--min-tpmc", "1", runDir).CombinedOutput(); err != nil {
		t.Errorf("check-result after resume --from run: %v\n%s", err, check)
	}
}

// runningJob waits for a run job on the workload host and returns the pid
// of its wrapper (the leader of the job's process group).
func (e *e2e) runningJob(host string) int {
	e.t.Helper()
	jobs := filepath.Join(e.home, e.prefix, host, "jobs")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		pids, _ := filepath.Glob(filepath.Join(jobs, "run*.pid"))
		for _, f := range pids {
			if _, err := os.Stat(strings.TrimSuffix(f, ".pid") + ".exit"); err == nil {
				continue
			}
			if b, err := os.ReadFile(f); err == nil {
				if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid > 0 {
					return pid
				}
			}
		}
	}
	e.t.Fatalf("no running job in %s", jobs)
	return 0
}

// TestHostMetricsAndThresholds runs the local topology with a threshold
// no run meets: status --watch follows it with the live tpmC,
// every host samples itself during the run (the report has
// a CPU panel and a summary row for all five), the run ends with exit 30
// and the one-line reason, and check-result without flags says the same
// from the plan copy.
func TestHostMetricsAndThresholds(t *testing.T) {
	// The published reference: the v20.1 10-warehouse page's figures (a
	// CockroachDB result; here only something to set the run beside).
	published := "published:\n  page: https://www.cockroachlabs.com/docs/v20.1/performance-benchmarking-with-tpc-c-10-warehouses\n" +
		"  release: v19.2\n  year: 2019\n  tpmc: 121.6\n  efficiency_percent: 94.6\n  efficiency_basis: workload\n" +
		"  latency:\n    - {op: newOrder, percentile: p95, value: 71.3ms}\n"
	e := newE2E(t, "12s", planOpts{top: "thresholds:\n  min_tpmc: 1000000000\n" + published})
	e.start("run", "--runs-dir", e.runs, "--start-lead", "2s", e.plan)
	// status --watch follows the run from its run stage to its end, as
	// plain lines (its output is a pipe), with the live merged tpmC.
	e.waitFor("the run stage", 5*time.Minute, func(st *rundir.State) bool { return stageStatus(st, "run") == rundir.Running })
	watch, err := exec.Command(e.bin, "status", "--watch", "--interval", "500ms", e.runDir()).CombinedOutput()
	if err != nil {
		t.Errorf("status --watch: %v\n%s", err, watch)
	}
	t.Logf("status --watch:\n%s", watch)
	if !regexp.MustCompile(`stage run running: .*; tpmC [1-9][0-9.]* \(load1 [0-9.]+, load2 [0-9.]+\)`).Match(watch) ||
		!strings.HasSuffix(strings.TrimSpace(string(watch)), "run finished") || strings.Contains(string(watch), "\x1b") {
		t.Errorf("status --watch did not follow the run with its live tpmC:\n%s", watch)
	}
	if code := e.wait(6 * time.Minute); code != exitCheck {
		t.Fatalf("benchrig run exited %d, want %d (threshold missed)", code, exitCheck)
	}
	if !strings.Contains(e.logs.String(), "check-result: tpmC ") || !strings.Contains(e.logs.String(), "< 1e+09 (min-tpmc)") {
		t.Errorf("no one-line threshold reason in the output:\n%s", lastN(e.logs.String(), 20))
	}
	runDir := e.runDir()
	r := e.checkResult(runDir)
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
	out, err := exec.Command(e.bin, "check-result", runDir).CombinedOutput()
	if code := exitCodeOf(err); code != exitCheck || !strings.Contains(string(out), "(min-tpmc)") {
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
	if !line.Match(out) || !line.MatchString(e.logs.String()) {
		t.Errorf("check-result or the run does not compare with the published result:\n%s\n%s", out, lastN(e.logs.String(), 20))
	}
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// TestTeardown starts the local topology's databases over real sshd,
// then tears them down: teardown RUN_DIR stops every PostgreSQL node
// (and logs under the run directory), --wipe without a terminal or --yes
// is refused, and --wipe --yes on the plan removes stores and work
// directories.
func TestTeardown(t *testing.T) {
	e := newE2E(t, "5s", planOpts{stages: "install, start"})
	e.start("run", "--runs-dir", e.runs, e.plan)
	if code := e.wait(3 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d", code)
	}
	runDir := e.runDir()
	pgRunning := func(i int) bool {
		data := filepath.Join(e.home, e.prefix, fmt.Sprintf("db%d", i), "pgdata")
		return e.asLoginUser(e.pgbin+"/pg_ctl", "-D", data, "status").Run() == nil
	}
	for i := 1; i <= 3; i++ {
		if !pgRunning(i) {
			t.Fatalf("db%d is not running after start", i)
		}
	}
	out, err := exec.Command(e.bin, "teardown", runDir).CombinedOutput()
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
	cmd := exec.Command(e.bin, "teardown", e.plan, "--wipe")
	cmd.Stdin = nil // /dev/null: not a terminal
	out, err = cmd.CombinedOutput()
	if code := exitCodeOf(err); code != exitUsage || !strings.Contains(string(out), "add --yes") {
		t.Errorf("--wipe without a terminal: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.home, e.prefix, "db1", "pgdata")); err != nil {
		t.Fatalf("the refused wipe removed the store: %v", err)
	}
	out, err = exec.Command(e.bin, "teardown", e.plan, "--wipe", "--yes").CombinedOutput()
	if err != nil {
		t.Fatalf("teardown --wipe --yes: %v\n%s", err, out)
	}
	for _, h := range []string{"db1", "db2", "db3", "load1", "load2"} {
		if _, err := os.Stat(filepath.Join(e.home, e.prefix, h)); !os.IsNotExist(err) {
			t.Errorf("%s's work directory is still there: %v", h, err)
		}
	}
}
