package faults_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/orchestrator/rundir"
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
	t.Parallel()
	e := e2e.New(t, "5s", e2e.PlanOpts{SSH: "  keepalive: 1s\n", Faults: true})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)

	// import: load1 has run tpcc init (not safe to repeat) and follows
	// its load job.
	e.WaitFor("load1's load job", 4*time.Minute, func(s *rundir.State) bool {
		h := e2e.HostState(s, "import", "load1")
		return h != nil && h.Done >= 1
	})
	e.RunningJobNamed("load1", "import")
	// Into the follow of its log: a reset between two of the step's
	// commands, when the connection is idle, is redialed by the executor
	// without a word (the next command finds it dead before it starts).
	time.Sleep(time.Second)
	db2Dials := e.Lab.Proxy(e2e.LabDB2).Accepted()
	e.Lab.Proxy(e2e.LabLoad1).Reset()
	e.Lab.Proxy(e2e.LabDB2).Reset()
	// The standbys stop replaying while the load still writes: the
	// partition stage's wait cannot succeed until they go on.
	e.StandbyReplay("pause")

	// partition: the wait polls (and fails: the standbys are behind).
	e.WaitFor("the partition stage", 3*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "partition") == rundir.Running })
	time.Sleep(1500 * time.Millisecond)
	if err := e.Lab.Kill(e2e.LabDB1); err != nil {
		t.Fatal(err)
	}
	e.WaitForOutput("db1 reported unreachable", 30*time.Second, "host db1 unreachable since")
	if err := e.Lab.Restart(e2e.LabDB1); err != nil {
		t.Fatal(err)
	}
	e.WaitForOutput("db1 reachable again", time.Minute, "host db1 reachable again")
	e.StandbyReplay("resume")

	// collect: slow load2's link from the measured run on, so that its
	// downloads last seconds, then black-hole it once collect runs.
	e.WaitFor("the run stage", 3*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "run") == rundir.Running })
	e.RunningJobNamed("load2", "run")
	e.Lab.Proxy(e2e.LabLoad2).Delay(150 * time.Millisecond)
	e.WaitFor("the collect stage", 3*time.Minute, func(s *rundir.State) bool { return e2e.StageStatus(s, "collect") == rundir.Running })
	e.Lab.Proxy(e2e.LabLoad2).Blackhole(10 * time.Second)
	e.Lab.Proxy(e2e.LabLoad2).Delay(0)

	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("benchrig run exited %d with faults in import, partition and collect", code)
	}
	runDir := e.RunDir()
	out := e.OutputLog(runDir)
	t.Logf("redials and re-attaches:\n%s", e2e.FaultLines(out))

	imp := e2e.StageOutput(out, "import")
	if !strings.Contains(imp, "host load1 unreachable since") || !strings.Contains(imp, "host load1 reachable again") ||
		!strings.Contains(imp, "load1: re-attaching to job import") && !(strings.Contains(imp, "load1: job import") && strings.Contains(imp, "already finished")) {
		t.Errorf("import: the reset of load1 did not show a redial and a re-attach to its load job:\n%s", e2e.LastN(imp, 30))
	}
	if n := e.Lab.Proxy(e2e.LabDB2).Accepted(); n <= db2Dials {
		t.Errorf("db2: no new connection after its reset (%d accepted before, %d after)", db2Dials, n)
	}

	part := e2e.StageOutput(out, "partition")
	if !strings.Contains(part, "host db1 unreachable since") || !strings.Contains(part, "host db1 reachable again") ||
		!strings.Contains(part, "wait for standbys to catch up") {
		t.Errorf("partition: the restart of db1's sshd during the wait was not waited out:\n%s", e2e.LastN(part, 30))
	}

	coll := e2e.StageOutput(out, "collect")
	if !strings.Contains(coll, "host load2 unreachable since") || !strings.Contains(coll, "host load2 reachable again") {
		t.Errorf("collect: load2's black hole did not show a redial:\n%s", e2e.LastN(coll, 30))
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
		want, err := os.ReadFile(filepath.Join(e.Home, e.Prefix, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || !bytes.Equal(got, want) {
			t.Errorf("results/%s: %d bytes collected, the host has %d (or they differ)", f, len(got), len(want))
		}
	}
	e.CheckResult(runDir)
}
