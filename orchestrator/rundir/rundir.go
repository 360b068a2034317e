package rundir

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The files of a run directory.
const (
	PlanFile   = "plan.yaml"  // the run's own copy of the plan
	StateFile  = "state.json" // State, rewritten after every step
	LockFile   = "lock"       // flock(2)ed by the process driving the run
	OutputLog  = "output.log" // the console, as printed
	StepsLog   = "steps.log"  // Journal: one line per step as it starts
	LogsDir    = "logs"       // Logs: logs/<stage>/<host>.log
	ResultsDir = "results"    // files collected from the hosts, results/<host>/
)

// Create makes a new run directory for plan name under runsDir, named
// after the plan and the time, and stores the plan's text in it: a resume
// compiles exactly what the run started with, whatever happens to the
// original.
func Create(runsDir, name string, planText []byte, now time.Time) (string, error) {
	dir := filepath.Join(runsDir, name+"-"+now.UTC().Format("20060102-150405"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, PlanFile), planText, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// Open reads the state of the run in dir.
func Open(dir string) (*State, error) {
	st, err := ReadState(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	return st, nil
}
