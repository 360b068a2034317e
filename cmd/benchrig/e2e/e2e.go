package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/testneeds"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// Binary builds the benchrig command once per test process (Main removes
// it).
func Binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchrig-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "benchrig")
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/benchrig/benchrig/cmd/benchrig").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// Env is one end-to-end topology: the lab, the plan and its run directory.
type Env struct {
	T        *testing.T
	Bin      string // the benchrig binary (Binary)
	Lab      *sshtest.Lab
	Plan     string // the plan's path
	Runs     string // the runs directory
	Port     int    // the PostgreSQL nodes' port
	Prefix   string // work directory of the hosts, under the login user's home
	Home     string // the login user's home
	PGBin    string // PostgreSQL's server programs
	Logs     *bytes.Buffer
	Proc     *exec.Cmd
	procDone chan error
	exited   chan struct{} // closed once the background benchrig was reaped
}

// PlanOpts change the e2e plan: the stages, and extra lines for the tpcc
// and preflight sections.
type PlanOpts struct {
	Stages, TPCC, Preflight string
	Top                     string   // top-level lines (benchmark:, crud:)
	SSH                     string   // more lines of the ssh: section
	Faults                  bool     // every host behind a fault proxy (sshtest.WithProxies)
	SSHD                    []string // lines appended to every host's sshd_config (a Match block: one host's)
}

// New starts the e2e lab (five sshd: db1-3, load1-2) and writes its plan,
// a run of duration; opts add to it.
func New(t *testing.T, duration string, opts ...PlanOpts) *Env {
	o := PlanOpts{Stages: "install, start, init, configure, import, partition, swap, run, collect, merge"}
	for _, x := range opts {
		if x.Stages != "" {
			o.Stages = x.Stages
		}
		o.TPCC += x.TPCC
		o.Preflight += x.Preflight + x.Top
		o.SSH += x.SSH
		o.Faults = o.Faults || x.Faults
		o.SSHD = append(o.SSHD, x.SSHD...)
	}
	e := NewBase(t)
	var labOpts []sshtest.Option
	if o.Faults {
		labOpts = append(labOpts, sshtest.WithProxies())
	}
	if len(o.SSHD) > 0 {
		labOpts = append(labOpts, sshtest.WithConfig(o.SSHD...))
	}
	e.Lab = sshtest.StartT(t, 5, labOpts...)
	u, err := user.Lookup(e.Lab.User())
	if err != nil {
		t.Fatal(err)
	}
	e.Home = u.HomeDir
	e.Prefix = NewPrefix("benchrig-e2e")
	e.Port = FreePort(t, "127.0.0.2", "127.0.0.3", "127.0.0.4")
	dir := t.TempDir()
	cfg := filepath.Join(e.Lab.Dir(), "ssh_config")
	if err := e.Lab.WriteSSHConfig(cfg, "lab-", []string{"db1", "db2", "db3", "load1", "load2"}); err != nil {
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
`, cfg, e.Lab.KnownHostsPath(), o.SSH, e.Port, e.Prefix, e.Prefix, e.PGBin, e.PGBin, o.Preflight, duration, o.TPCC, o.Stages)
	e.Plan = filepath.Join(dir, "e2e.yaml")
	if err := os.WriteFile(e.Plan, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Runs = filepath.Join(dir, "runs")
	t.Cleanup(e.cleanup)
	return e
}

// NewBase skips the test under -short or without PostgreSQL's server
// programs (fails it under CI: internal/testneeds), and builds benchrig: an e2e without lab or plan yet.
func NewBase(t *testing.T) *Env {
	if testing.Short() {
		t.Skip("end-to-end test (-short)")
	}
	pgbins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(pgbins) == 0 {
		testneeds.Missing(t, "PostgreSQL server programs not installed (run .ci/setup)")
	}
	sort.Strings(pgbins)
	return &Env{T: t, Bin: Binary(t), PGBin: filepath.Dir(pgbins[len(pgbins)-1]), Logs: &bytes.Buffer{}}
}

// AsLoginUser runs a command as the lab's login user (the PostgreSQL
// servers and their files belong to it).
func (e *Env) AsLoginUser(args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", e.Lab.User(), "--"}, args...)...)
	}
	return exec.Command(args[0], args[1:]...)
}

func (e *Env) cleanup() {
	// A test that failed while benchrig ran leaves it running: stop it,
	// so that it neither outlives the test nor writes Logs while they are
	// read below (a data race, which the race detector then blames on
	// every test running at that moment).
	if e.exited != nil {
		select {
		case <-e.exited:
		default:
			_ = e.Proc.Process.Kill()
			<-e.exited
		}
	}
	for i := 1; i <= 3; i++ {
		data := filepath.Join(e.Home, e.Prefix, fmt.Sprintf("db%d", i), "pgdata")
		_ = e.AsLoginUser(e.PGBin+"/pg_ctl", "-D", data, "-m", "immediate", "stop").Run()
	}
	if !e.T.Failed() {
		_ = e.AsLoginUser("rm", "-rf", filepath.Join(e.Home, e.Prefix)).Run()
	} else {
		e.T.Logf("orchestrator output:\n%s", LastN(e.Logs.String(), 80))
	}
}

// LastN is the last n lines of s.
func LastN(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// prefixes counts NewPrefix's names: tests that run in parallel may ask
// within one clock tick.
var prefixes atomic.Int64

// NewPrefix is a work directory name under the login user's home that no
// other test (of this process, or of another run) uses: parallel tests'
// hosts all live in that one home.
func NewPrefix(base string) string {
	return fmt.Sprintf("%s-%d-%d-%d", base, os.Getpid(), time.Now().UnixNano()%1e9, prefixes.Add(1))
}

// portsGiven are the ports FreePort handed out in this process: a port
// is free when picked, but a server binds it only minutes later (the
// start stage), so two tests running in parallel must not be given the
// same one.
var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// FreePort finds a TCP port free on every address, and not given to
// another test of this process.
func FreePort(t *testing.T, addrs ...string) int {
	portsMu.Lock()
	defer portsMu.Unlock()
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", addrs[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		ok := !portsGiven[port]
		for _, a := range addrs[1:] {
			l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			portsGiven[port] = true
			return port
		}
	}
	t.Fatal("no free port on every address")
	return 0
}

// Start runs benchrig with args in the background.
func (e *Env) Start(args ...string) {
	e.T.Helper()
	e.Proc = exec.Command(e.Bin, args...)
	e.Proc.Stdout, e.Proc.Stderr = e.Logs, e.Logs
	if err := e.Proc.Start(); err != nil {
		e.T.Fatal(err)
	}
	proc, done, exited := e.Proc, make(chan error, 1), make(chan struct{})
	e.procDone, e.exited = done, exited
	go func() {
		done <- proc.Wait()
		close(exited)
	}()
}

// Stretch is a bound on a stage's progress as written for one lab on an
// idle machine, made to hold when Parallel() labs share the CPU (and go
// test runs other packages beside): bounds of a minute or more are
// multiplied by Parallel()/2 (at least 1). Shorter bounds are what a
// test checks (a dropped link noticed within seconds) and stay as they
// are. Wait, WaitFor and KillInStage stretch their bounds themselves.
func Stretch(d time.Duration) time.Duration {
	if d < time.Minute {
		return d
	}
	return d * time.Duration(max(1, Parallel()/2))
}

// Wait waits for the background benchrig and returns its exit code (at
// most Stretch(timeout)).
func (e *Env) Wait(timeout time.Duration) int {
	e.T.Helper()
	timeout = Stretch(timeout)
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
		e.T.Fatal(err)
	case <-time.After(timeout):
		_ = e.Proc.Process.Kill()
		e.T.Fatalf("benchrig %s did not finish within %s", strings.Join(e.Proc.Args[1:], " "), timeout)
	}
	return -1
}

// RunDir is the one run directory under Runs.
func (e *Env) RunDir() string {
	dirs, _ := filepath.Glob(filepath.Join(e.Runs, "e2e-*"))
	if len(dirs) != 1 {
		e.T.Fatalf("want one run directory, got %v", dirs)
	}
	return dirs[0]
}

// WaitFor polls the run state until cond holds (at most
// Stretch(timeout)).
func (e *Env) WaitFor(what string, timeout time.Duration, cond func(*rundir.State) bool) *rundir.State {
	e.T.Helper()
	deadline := time.Now().Add(Stretch(timeout))
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob(filepath.Join(e.Runs, "e2e-*", "state.json"))
		if len(dirs) == 1 {
			if st, err := rundir.ReadState(dirs[0]); err == nil && cond(st) {
				return st
			}
		}
		select {
		case err := <-e.procDone:
			e.T.Fatalf("benchrig exited (%v) before %s", err, what)
		case <-time.After(200 * time.Millisecond):
		}
	}
	e.T.Fatalf("timed out waiting for %s", what)
	return nil
}

// StageStatus is the status of the stage name in st.
func StageStatus(st *rundir.State, name string) string {
	for _, s := range st.Stages {
		if s.Name == name {
			return s.Status
		}
	}
	return ""
}

// DoneStages are the names of st's finished stages, in order.
func DoneStages(st *rundir.State) []string {
	var out []string
	for _, s := range st.Stages {
		if s.Status == rundir.Done {
			out = append(out, s.Name)
		}
	}
	return out
}

// CheckResult verifies what a finished run must leave: a merged tpmC,
// the report files, and a database that passes the consistency checks.
func (e *Env) CheckResult(runDir string) *report.Report {
	e.T.Helper()
	for _, f := range []string{"report.md", "report.json", "tpmc.svg", "latency.svg", "state.json", "steps.log", "plan.yaml"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			e.T.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(runDir, "report.json"))
	if err != nil {
		e.T.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		e.T.Fatal(err)
	}
	if r.Result == nil || r.Result.TpmC <= 0 || r.Result.Efficiency <= 0 {
		e.T.Fatalf("report has no merged result: %+v", r.Result)
	}
	if len(r.Result.Ops) != 5 || len(r.Clock) != 2 || r.StartSkew == nil || len(r.Audit) != 2 {
		e.T.Errorf("report incomplete: %d ops, %d clocks, skew %v, %d audits", len(r.Result.Ops), len(r.Clock), r.StartSkew, len(r.Audit))
	}
	url := fmt.Sprintf("postgres://%s@127.0.0.2:%d/tpcc?sslmode=disable", e.Lab.User(), e.Port)
	out, err := exec.Command(e.Bin, "tpcc", "check", "--warehouses", "2", url).CombinedOutput()
	if err != nil {
		e.T.Fatalf("tpcc check after the run: %v\n%s", err, out)
	}
	return &r
}

var startAtRE = regexp.MustCompile(`--start-at=\S+`)

// SortedJournal is a run's steps.log, or what a dry-run would write, as
// sorted lines with the start instant normalised.
func SortedJournal(text string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		lines = append(lines, startAtRE.ReplaceAllString(l, "--start-at=T"))
	}
	sort.Strings(lines)
	return lines
}

// DryRunJournal is the journal a dry-run of the plan writes.
func (e *Env) DryRunJournal() string {
	e.T.Helper()
	p, err := orchestrator.LoadPlan(e.Plan)
	if err != nil {
		e.T.Fatal(err)
	}
	compiled, err := stages.Compile(p, stages.Options{DriverPath: e.Bin})
	if err != nil {
		e.T.Fatal(err)
	}
	if err := orchestrator.PinUploads(compiled); err != nil {
		e.T.Fatal(err)
	}
	var j bytes.Buffer
	r := &runner.Runner{Exec: remote.NewRecorder(), Observers: []runner.Observer{&rundir.Journal{W: &j}},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := r.Run(context.Background(), compiled); err != nil {
		e.T.Fatal(err)
	}
	return j.String()
}

// JournalCounts are the steps of runDir's steps.log per stage.
func (e *Env) JournalCounts(runDir string) map[string]int {
	executed, err := os.ReadFile(filepath.Join(runDir, "steps.log"))
	if err != nil {
		e.T.Fatal(err)
	}
	return CountByStage(SortedJournal(string(executed)))
}

// CountByStage counts journal lines per stage.
func CountByStage(lines []string) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		stage, _, _ := strings.Cut(l, "\t")
		n[stage]++
	}
	return n
}

// KillInStage waits until the running benchrig has started a step of
// stage (its line in steps.log past offset from), waits after, SIGKILLs
// it and waits for it to end. It returns steps.log's size then.
func (e *Env) KillInStage(stage string, from int64, after time.Duration) int64 {
	e.T.Helper()
	prefix := []byte(stage + "\t")
	deadline := time.Now().Add(Stretch(5 * time.Minute))
	for {
		if time.Now().After(deadline) {
			e.T.Fatalf("no step of stage %s started", stage)
		}
		select {
		case err := <-e.procDone:
			e.T.Fatalf("benchrig exited (%v) before stage %s", err, stage)
		case <-time.After(2 * time.Millisecond):
		}
		logs, _ := filepath.Glob(filepath.Join(e.Runs, "e2e-*", rundir.StepsLog))
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
	_ = e.Proc.Process.Kill()
	e.Wait(time.Minute)
	st, err := os.Stat(filepath.Join(e.RunDir(), rundir.StepsLog))
	if err != nil {
		e.T.Fatal(err)
	}
	return st.Size()
}

// ReadReport decodes runDir's report.json.
func ReadReport(t *testing.T, runDir string) *report.Report {
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

// RunningJob waits for a run job on the workload host and returns the pid
// of its wrapper (the leader of the job's process group).
func (e *Env) RunningJob(host string) int {
	e.T.Helper()
	jobs := filepath.Join(e.Home, e.Prefix, host, "jobs")
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
	e.T.Fatalf("no running job in %s", jobs)
	return 0
}

// ExitCodeOf is the exit code in err: 0 for nil, -1 if err is not an
// *exec.ExitError.
func ExitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// Parallel is how many end-to-end tests of a package run at once (Main):
// twice GOMAXPROCS, and at least 2. Each runs a lab of its own (five
// sshd, three PostgreSQL servers, the orchestrator and its jobs), and
// go test runs the e2e and e2e/faults packages side by side, so on
// 2 cores 8 labs may run at once; more than that made the CPU-bound
// phases (import, initdb) slower than the waits they overlap.
func Parallel() int { return max(2, 2*runtime.GOMAXPROCS(0)) }

// Lab host indexes of the e2e topology.
const (
	LabDB1, LabDB2, LabDB3, LabLoad1, LabLoad2 = 0, 1, 2, 3, 4
)

// HostState is host's state in stage, or nil.
func HostState(st *rundir.State, stage, host string) *rundir.HostState {
	for i := range st.Stages {
		if st.Stages[i].Name != stage {
			continue
		}
		for k := range st.Stages[i].Hosts {
			if st.Stages[i].Hosts[k].Host == host {
				return &st.Stages[i].Hosts[k]
			}
		}
	}
	return nil
}

// RunningJobNamed waits for a job whose name starts with name (its run's
// tag follows) to run on host.
func (e *Env) RunningJobNamed(host, name string) {
	e.T.Helper()
	jobs := filepath.Join(e.Home, e.Prefix, host, "jobs")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		pids, _ := filepath.Glob(filepath.Join(jobs, name+".*.pid"))
		for _, f := range pids {
			if _, err := os.Stat(strings.TrimSuffix(f, ".pid") + ".exit"); err != nil {
				return
			}
		}
	}
	e.T.Fatalf("no running job %s in %s", name, jobs)
}

// JobExited waits until a job whose name starts with name (its run's tag
// follows) has its exit record on host: the job ended, whatever the
// orchestrator could see of it. The test reads the host's files directly
// (every lab host's work directory is on this machine).
func (e *Env) JobExited(host, name string, timeout time.Duration) {
	e.T.Helper()
	jobs := filepath.Join(e.Home, e.Prefix, host, "jobs")
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if exits, _ := filepath.Glob(filepath.Join(jobs, name+".*.exit")); len(exits) > 0 {
			return
		}
	}
	e.T.Fatalf("no job %s ended in %s within %s", name, jobs, timeout)
}

// StandbyReplay pauses or resumes WAL replay on the standbys (db2, db3).
// After a pause the primary writes a checkpoint record, so the standbys
// are behind even when the load has already been replayed.
func (e *Env) StandbyReplay(what string) {
	e.T.Helper()
	for _, addr := range []string{"127.0.0.3", "127.0.0.4"} {
		e.Psql(addr, "SELECT pg_wal_replay_"+what+"()")
	}
	if what == "pause" {
		e.Psql("127.0.0.2", "CHECKPOINT")
	}
}

// Psql runs one statement on the node at addr, as the login user.
func (e *Env) Psql(addr, stmt string) {
	e.T.Helper()
	out, err := e.AsLoginUser(e.PGBin+"/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", addr, "-p", fmt.Sprint(e.Port),
		"-d", "postgres", "-c", stmt).CombinedOutput()
	if err != nil {
		e.T.Fatalf("%s on %s: %v\n%s", stmt, addr, err, out)
	}
}

// OutputLog is the run directory's copy of the console (output.log):
// the orchestrator writes it, so it can be read while the run goes on.
func (e *Env) OutputLog(runDir string) string {
	e.T.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, rundir.OutputLog))
	if err != nil {
		e.T.Fatal(err)
	}
	return string(data)
}

// WaitForOutput waits until the run's output.log contains text.
func (e *Env) WaitForOutput(what string, timeout time.Duration, text string) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob(filepath.Join(e.Runs, "e2e-*", rundir.OutputLog))
		if len(dirs) == 1 {
			if data, err := os.ReadFile(dirs[0]); err == nil && strings.Contains(string(data), text) {
				return
			}
		}
		select {
		case err := <-e.procDone:
			e.T.Fatalf("benchrig exited (%v) before %s", err, what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	e.T.Fatalf("timed out waiting for %s", what)
}

// StageOutput is what the console printed during stage: every section
// from its "== stage NAME:" header to the next header (a resumed run
// prints a stage again).
func StageOutput(out, stage string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, "== stage ") {
			in = strings.HasPrefix(l, "== stage "+stage+":")
		}
		if in {
			b.WriteString(l)
		}
	}
	return b.String()
}

// FaultLines are the console's lines about stages, redials and
// re-attaches: what a test log shows of a fault.
func FaultLines(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		for _, w := range []string{"== stage ", "unreachable since", "reachable again", "re-attaching to job", "already finished", "starting it again", "already running"} {
			if strings.Contains(l, w) {
				b.WriteString(l)
				break
			}
		}
	}
	return b.String()
}

// Must fails t on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FirstLineWith is the first line of out containing s.
func FirstLineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// RunBenchrig runs the binary to the end and returns its output.
func (e *Env) RunBenchrig(args ...string) (string, error) {
	out, err := exec.Command(e.Bin, args...).CombinedOutput()
	return string(out), err
}

// The exit codes of README.md's table, as the tests expect them of the
// binary (cmd/benchrig's TestE2EExitCodes holds them equal to its own).
const (
	ExitOK          = 0
	ExitUsage       = 2
	ExitInvalidPlan = 3
	ExitTransport   = 10
	ExitRemote      = 20
	ExitCheck       = 30
	ExitIncomplete  = 40
	ExitInterrupted = 130
)

// Main runs a test package's tests (its TestMain) and then removes the
// binary Binary built, which outlives every test and so no t.TempDir can
// hold. Unless -test.parallel is given, it lets Parallel() tests run at
// once: go test's default, GOMAXPROCS, suits tests that compute, and
// these mostly wait (on the runs' fixed durations, ramps and start
// leads, on jobs polled once a second, on keepalives and reconnects).
func Main(m *testing.M) int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(Parallel()))
	}
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	return code
}
