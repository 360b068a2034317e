package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/orchestrator/probe"
	"github.com/benchrig/benchrig/orchestrator/runner"
)

// probeResults is the observer that keeps the orchestrator's own probes
// as benchrig.result/v1 files in the run directory, for the report: each
// host's preflight disk benchmark (results/<host>/fio.json) and every
// clock probe (clock.json).
type probeResults struct {
	runDir string
	// fioSize and fioRuntime are the running preflight stage's (from its
	// Check), for the disk benchmark's result.
	fioSize    string
	fioRuntime time.Duration
	clock      probe.Clock
}

func newProbeResults(runDir string) *probeResults {
	return &probeResults{runDir: runDir, clock: probe.NewClock()}
}

func (o *probeResults) Observe(e runner.Event) error {
	switch {
	case e.Kind == runner.StageStarted && e.Check != nil:
		o.fioSize, o.fioRuntime = e.Check.FioSize, e.Check.FioRuntime
	case e.Kind == runner.StepDone && e.Step.Probe == "preflight":
		return o.fio(e)
	case e.Kind == runner.StepDone && e.Step.Probe == "clock":
		return o.clockProbe(e)
	}
	return nil
}

// fio writes a host's disk benchmark result. Figures that are not numbers
// leave no file: the preflight table warns of them.
func (o *probeResults) fio(e runner.Event) error {
	kv := probe.ParseKV(string(e.Result.Stdout))
	f, err := probe.FioFromKV(e.Host, kv["path"], o.fioSize, o.fioRuntime, kv)
	if err != nil {
		return nil
	}
	dir := filepath.Join(o.runDir, "results", e.Host)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("preflight result of %s: %w", e.Host, err)
	}
	return result.WriteFile(filepath.Join(dir, probe.FioFile), f)
}

// clockProbe adds a probe to clock.json. The file holds this attempt's
// probes: a resume that probes again replaces those of the attempt it
// resumes, which were taken for a run that did not finish.
func (o *probeResults) clockProbe(e runner.Event) error {
	secs, err := probe.ParseClock(e.Host, string(e.Result.Stdout))
	if err != nil {
		return nil
	}
	o.clock.Hosts = append(o.clock.Hosts, probe.NewClockHost(e.Host, e.Sent, e.Received, secs))
	sort.SliceStable(o.clock.Hosts, func(i, j int) bool { return o.clock.Hosts[i].Host < o.clock.Hosts[j].Host })
	return result.WriteFile(filepath.Join(o.runDir, probe.ClockFile), o.clock)
}
