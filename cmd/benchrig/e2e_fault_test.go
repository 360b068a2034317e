package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/rundir"
)

// The fault lab's end-to-end tests: the e2e topology with every host
// behind a fault proxy (sshtest.WithProxies), faults made to order while
// the orchestrator runs as a separate process.

// Lab host indexes of the e2e topology.
const (
	labDB1, labDB2, labDB3, labLoad1, labLoad2 = 0, 1, 2, 3, 4
)

// TestFaultsImportPartitionCollect puts three faults into one run, each
// in its own stage, each checked on its own:
//
//   - import: every connection of load1 (following its load job) and of
//     db2 (a database node: the postgres flavor runs no step on it during
//     import, so its connection is idle there) is reset. load1's step
//     must redial and re-attach to the load job by its name; db2's next
//     step (the swap) must run over a new connection.
//   - partition: db1's sshd is killed and started again (a new process
//     with the same host key) while the partition stage's one step, the
//     primary's wait for the standbys to replay the load, polls. The test
//     holds that wait open by pausing WAL replay on the standbys, so the
//     fault lands inside it whatever the machine's speed, and lets it
//     finish once the host was seen away and back.
//   - collect: load2's link is slowed (so its downloads take seconds),
//     then black-holed during collect; the downloads must be repeated and
//     both workload hosts' files arrive whole.
//
// The run must end with exit 0 and a right merged result. Each fault's
// redials are read from the run directory's output.log, stage by stage.
func TestFaultsImportPartitionCollect(t *testing.T) {
	e := newE2E(t, "5s", planOpts{ssh: "  keepalive: 1s\n", faults: true})
	e.start("run", "--runs-dir", e.runs, "--start-lead", "1s", e.plan)

	// import: load1 has run tpcc init (not safe to repeat) and follows
	// its load job.
	e.waitFor("load1's load job", 4*time.Minute, func(s *rundir.State) bool {
		h := hostState(s, "import", "load1")
		return h != nil && h.Done >= 1
	})
	e.runningJobNamed("load1", "import")
	// Into the follow of its log: a reset between two of the step's
	// commands, when the connection is idle, is redialed by the executor
	// without a word (the next command finds it dead before it starts).
	time.Sleep(time.Second)
	db2Dials := e.lab.Proxy(labDB2).Accepted()
	e.lab.Proxy(labLoad1).Reset()
	e.lab.Proxy(labDB2).Reset()
	// The standbys stop replaying while the load still writes: the
	// partition stage's wait cannot succeed until they go on.
	e.standbyReplay("pause")

	// partition: the wait polls (and fails: the standbys are behind).
	e.waitFor("the partition stage", 3*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "partition") == rundir.Running })
	time.Sleep(1500 * time.Millisecond)
	if err := e.lab.Kill(labDB1); err != nil {
		t.Fatal(err)
	}
	e.waitForOutput("db1 reported unreachable", 30*time.Second, "host db1 unreachable since")
	if err := e.lab.Restart(labDB1); err != nil {
		t.Fatal(err)
	}
	e.waitForOutput("db1 reachable again", time.Minute, "host db1 reachable again")
	e.standbyReplay("resume")

	// collect: slow load2's link from the measured run on, so that its
	// downloads last seconds, then black-hole it once collect runs.
	e.waitFor("the run stage", 3*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "run") == rundir.Running })
	e.runningJobNamed("load2", "run")
	e.lab.Proxy(labLoad2).Delay(150 * time.Millisecond)
	e.waitFor("the collect stage", 3*time.Minute, func(s *rundir.State) bool { return stageStatus(s, "collect") == rundir.Running })
	e.lab.Proxy(labLoad2).Blackhole(10 * time.Second)
	e.lab.Proxy(labLoad2).Delay(0)

	if code := e.wait(5 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d with faults in import, partition and collect", code)
	}
	runDir := e.runDir()
	out := e.outputLog(runDir)
	t.Logf("redials and re-attaches:\n%s", faultLines(out))

	imp := stageOutput(out, "import")
	if !strings.Contains(imp, "host load1 unreachable since") || !strings.Contains(imp, "host load1 reachable again") ||
		!strings.Contains(imp, "load1: re-attaching to job import") && !(strings.Contains(imp, "load1: job import") && strings.Contains(imp, "already finished")) {
		t.Errorf("import: the reset of load1 did not show a redial and a re-attach to its load job:\n%s", lastN(imp, 30))
	}
	if n := e.lab.Proxy(labDB2).Accepted(); n <= db2Dials {
		t.Errorf("db2: no new connection after its reset (%d accepted before, %d after)", db2Dials, n)
	}

	part := stageOutput(out, "partition")
	if !strings.Contains(part, "host db1 unreachable since") || !strings.Contains(part, "host db1 reachable again") ||
		!strings.Contains(part, "wait for standbys to catch up") {
		t.Errorf("partition: the restart of db1's sshd during the wait was not waited out:\n%s", lastN(part, 30))
	}

	coll := stageOutput(out, "collect")
	if !strings.Contains(coll, "host load2 unreachable since") || !strings.Contains(coll, "host load2 reachable again") {
		t.Errorf("collect: load2's black hole did not show a redial:\n%s", lastN(coll, 30))
	}
	// Both hosts' files, whole: the collected copies equal the hosts'.
	for _, f := range []string{
		"load1/workload1.histogram.ndjson", "load1/workload1.result.json", "load1/workload1.ticks.jsonl", "load1/hoststat.jsonl",
		"load2/workload2.histogram.ndjson", "load2/workload2.result.json", "load2/workload2.ticks.jsonl", "load2/hoststat.jsonl",
	} {
		got, err := os.ReadFile(filepath.Join(runDir, "results", f))
		if err != nil {
			t.Errorf("not collected: %v", err)
			continue
		}
		want, err := os.ReadFile(filepath.Join(e.home, e.prefix, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || !bytes.Equal(got, want) {
			t.Errorf("results/%s: %d bytes collected, the host has %d (or they differ)", f, len(got), len(want))
		}
	}
	e.checkResult(runDir)
}

// hostState is host's state in stage, or nil.
func hostState(st *rundir.State, stage, host string) *rundir.HostState {
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

// runningJobNamed waits for a job whose name starts with name (its run's
// tag follows) to run on host.
func (e *e2e) runningJobNamed(host, name string) {
	e.t.Helper()
	jobs := filepath.Join(e.home, e.prefix, host, "jobs")
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		pids, _ := filepath.Glob(filepath.Join(jobs, name+".*.pid"))
		for _, f := range pids {
			if _, err := os.Stat(strings.TrimSuffix(f, ".pid") + ".exit"); err != nil {
				return
			}
		}
	}
	e.t.Fatalf("no running job %s in %s", name, jobs)
}

// standbyReplay pauses or resumes WAL replay on the standbys (db2, db3).
// After a pause the primary writes a checkpoint record, so the standbys
// are behind even when the load has already been replayed.
func (e *e2e) standbyReplay(what string) {
	e.t.Helper()
	for _, addr := range []string{"127.0.0.3", "127.0.0.4"} {
		e.psql(addr, "SELECT pg_wal_replay_"+what+"()")
	}
	if what == "pause" {
		e.psql("127.0.0.2", "CHECKPOINT")
	}
}

// psql runs one statement on the node at addr, as the login user.
func (e *e2e) psql(addr, stmt string) {
	e.t.Helper()
	out, err := e.asLoginUser(e.pgbin+"/psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", addr, "-p", fmt.Sprint(e.port),
		"-d", "postgres", "-c", stmt).CombinedOutput()
	if err != nil {
		e.t.Fatalf("%s on %s: %v\n%s", stmt, addr, err, out)
	}
}

// outputLog is the run directory's copy of the console (output.log):
// the orchestrator writes it, so it can be read while the run goes on.
func (e *e2e) outputLog(runDir string) string {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(runDir, rundir.OutputLog))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(data)
}

// waitForOutput waits until the run's output.log contains text.
func (e *e2e) waitForOutput(what string, timeout time.Duration, text string) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		dirs, _ := filepath.Glob(filepath.Join(e.runs, "e2e-*", rundir.OutputLog))
		if len(dirs) == 1 {
			if data, err := os.ReadFile(dirs[0]); err == nil && strings.Contains(string(data), text) {
				return
			}
		}
		select {
		case err := <-e.procDone:
			e.t.Fatalf("benchrig exited (%v) before %s", err, what)
		case <-time.After(100 * time.Millisecond):
		}
	}
	e.t.Fatalf("timed out waiting for %s", what)
}

// stageOutput is what the console printed during stage: every section
// from its "== stage NAME:" header to the next header (a resumed run
// prints a stage again).
func stageOutput(out, stage string) string {
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

// faultLines are the console's lines about stages, redials and
// re-attaches: what a test log shows of a fault.
func faultLines(out string) string {
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
