package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benchrig/benchrig/orchestrator/runner"
)

// Logs is the observer that keeps every step's output: logs/<stage>/<host>.log
// in the run directory, scrubbed of the step's secrets. A log that cannot
// be written does not stop the run (the state file is what must not fail).
type Logs struct{ Dir string }

// Observe appends a finished step's command and output to its host's log.
func (l *Logs) Observe(e runner.Event) error {
	if e.Kind != runner.StepDone && e.Kind != runner.StepFailed {
		return nil
	}
	dir := filepath.Join(l.Dir, e.Stage)
	if os.MkdirAll(dir, 0o755) != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(dir, e.Host+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil
	}
	defer f.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "== %s %s: %s\n", e.Time.UTC().Format(time.RFC3339), e.Step.What, e.Step.Display())
	b.Write(e.Result.Stdout)
	if len(e.Result.Stderr) > 0 {
		b.WriteString("-- stderr --\n")
		b.Write(e.Result.Stderr)
	}
	if e.Err != nil {
		var se *runner.StepError
		msg := e.Err.Error()
		if errors.As(e.Err, &se) {
			msg = se.Message()
		}
		fmt.Fprintf(&b, "-- failed: %s\n", msg)
	}
	f.WriteString(runner.Redact(e.Step.Cmd, b.String()))
	return nil
}

// Journal is the observer that writes one line per step as it starts
// (steps.log): stage, host and the command as sent.
type Journal struct {
	W  io.Writer
	mu sync.Mutex
}

// Observe writes a started step's line.
func (j *Journal) Observe(e runner.Event) error {
	if e.Kind != runner.StepStarted {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	fmt.Fprintf(j.W, "%s\t%s\t%s\n", e.Stage, e.Host, strings.ReplaceAll(e.Step.Display(), "\n", "\\n"))
	return nil
}
