package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestProbeResults: the preflight answers and clock probes of a run
// become its result files, as the report reads them; a resume that
// probes again replaces the clock probes of the attempt it resumes.
func TestProbeResults(t *testing.T) {
	dir := t.TempDir()
	sent := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	step := func(host, probe, stdout string) runner.Event {
		return runner.Event{Kind: runner.StepDone, Stage: "preflight", Host: host, Step: stages.Step{Host: host, Probe: probe},
			Sent: sent, Received: sent.Add(2 * time.Millisecond), Result: remote.Result{Host: host, Stdout: []byte(stdout)}}
	}
	clock := func(host string, offset time.Duration) runner.Event {
		at := sent.Add(time.Millisecond + offset)
		return step(host, "clock", fmt.Sprintf("%d.%06d\n", at.Unix(), at.Nanosecond()/1000))
	}
	events := []runner.Event{
		{Kind: runner.StageStarted, Stage: "preflight", Check: &stages.Check{Kind: "preflight", FioSize: "64M", FioRuntime: 3 * time.Second}},
		step("db1", "preflight", "os=Linux\npath=/data/db1\nfio_read_kib=48000\nfio_read_iops=12000\nfio_write_kib=16000\nfio_write_iops=4000\n"),
		step("db2", "preflight", "os=Linux\npath=/data/db2\nfio=absent\n"),
		step("load1", "preflight", "os=Linux\npath=/home/b\nfio=skipped\n"),
		// Figures that are not numbers leave no file (the table warns).
		step("db3", "preflight", "path=/data/db3\nfio_read_iops=x\n"),
		clock("load1", 1500*time.Microsecond),
		clock("db1", -2*time.Millisecond),
		// An answer that is not a time is no probe.
		step("db2", "clock", "date: illegal option\n"),
	}
	o := newProbeResults(dir)
	for _, e := range events {
		if err := o.Observe(e); err != nil {
			t.Fatal(err)
		}
	}
	goldenfile.Check(t, "probes/clock-first.json", mustRead(t, filepath.Join(dir, "clock.json")))
	// The resume: a new observer, one new probe.
	if err := newProbeResults(dir).Observe(clock("load1", -500*time.Microsecond)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results/db1/fio.json", "results/db2/fio.json", "results/load1/fio.json", "clock.json"} {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, "probes/"+strings.ReplaceAll(strings.TrimPrefix(f, "results/"), "/", "-"), got)
	}
	if _, err := os.Stat(filepath.Join(dir, "results/db3/fio.json")); err == nil {
		t.Error("unreadable fio figures left a result file")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
