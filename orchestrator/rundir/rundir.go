package rundir

import (
	"fmt"
	"io"
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

// Create makes a new run directory for plan name under runsDir (see
// NewRunDir), takes its lock, and stores the plan's text in it: a resume
// compiles exactly what the run started with, whatever happens to the
// original. The caller releases the lock when the run ends.
func Create(runsDir, name string, planText []byte, now time.Time, rnd io.Reader) (dir string, release func(), err error) {
	dir, err = NewRunDir(runsDir, name, now, rnd)
	if err != nil {
		return "", nil, err
	}
	release, err = Lock(dir)
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, PlanFile), planText, 0o644); err != nil {
		release()
		return "", nil, err
	}
	return dir, release, nil
}

// Open reads the state of the run in dir.
func Open(dir string) (*State, error) {
	st, err := ReadState(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	return st, nil
}
