package orchestrator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TeardownTarget is what `benchrig teardown` works on: the plan of a run
// directory (its plan copy; RunDir is set) or a plan file.
type TeardownTarget struct {
	Plan   *plan.Plan
	RunDir string
}

// LoadTeardownTarget reads arg as a run directory (one with a state file)
// or else as a plan file.
func LoadTeardownTarget(arg string) (*TeardownTarget, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		st, err := rundir.Open(arg)
		if err != nil {
			return nil, &UsageError{fmt.Errorf("teardown: %s is not a run directory: %w", arg, err)}
		}
		p, err := loadRunPlan(arg, st, plan.Options{ReadOnly: true})
		if err != nil {
			return nil, err
		}
		return &TeardownTarget{Plan: p, RunDir: arg}, nil
	}
	p, err := LoadPlan(arg, plan.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return &TeardownTarget{Plan: p}, nil
}

// Teardown runs the teardown stage of t's plan: it stops benchrig's jobs
// and the database on every host and, with wipe, removes the stores and
// work directories. DryRun lists it. With a run directory the hosts' logs
// go to its logs/teardown/.
func Teardown(ctx context.Context, t *TeardownTarget, wipe bool, o Options) error {
	p := t.Plan
	list, err := stages.Compile(p, stages.Options{Only: []string{"teardown"}, Wipe: wipe})
	if err != nil {
		return &UsageError{err}
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "dry run of the teardown of plan %s: nothing is contacted; each line is what would be sent to that host\n", p.Name)
		r := &runner.Runner{
			Exec:      remote.NewRecorder(),
			Observers: []runner.Observer{&runner.Console{W: o.Out, Listing: true}},
			Limit:     p.SSH.Concurrency,
			Sleep:     func(context.Context, time.Duration) error { return nil },
		}
		return r.Run(ctx, list)
	}
	screen := &syncWriter{w: o.Out}
	hostOut := io.Discard // each host's output is in its log (with a run directory)
	if o.Verbose || t.RunDir == "" {
		hostOut = screen
	}
	ex, closeEx, err := newPlanExecutor(p, t.RunDir, hostOut, screen, nil, o)
	if err != nil {
		return err
	}
	defer closeEx()
	console := &runner.Console{W: screen, Bars: o.Terminal && !o.Verbose, Limit: p.SSH.Concurrency}
	defer console.Close()
	observers := []runner.Observer{console}
	if t.RunDir != "" {
		observers = append(observers, &rundir.Logs{Dir: filepath.Join(t.RunDir, rundir.LogsDir)})
	}
	r := &runner.Runner{Exec: ex, Observers: observers, Limit: p.SSH.Concurrency}
	if err := r.Run(ctx, list); err != nil {
		return err
	}
	what := "stopped"
	if wipe {
		what = "stopped and wiped"
	}
	fmt.Fprintf(o.Out, "teardown complete: %d hosts %s\n", len(p.Nodes)+len(p.Workload), what)
	return nil
}

// ConfirmWipe lists what --wipe removes and wants "yes" typed on a
// terminal; without one it refuses (a script must say --yes).
func ConfirmWipe(in io.Reader, out io.Writer, terminal bool, t *TeardownTarget) error {
	if !terminal {
		return &UsageError{errors.New("teardown --wipe: no terminal to ask on; add --yes to remove the stores and work directories")}
	}
	fmt.Fprintf(out, "teardown --wipe of plan %s removes, after stopping everything, those of these directories benchrig created (holding .benchrig-owned):\n", t.Plan.Name)
	for _, h := range t.Plan.Nodes {
		fmt.Fprintf(out, "  %-12s store %s, work directory %s\n", h.Name, h.Store, h.Dir)
	}
	for _, h := range t.Plan.Workload {
		fmt.Fprintf(out, "  %-12s work directory %s\n", h.Name, h.Dir)
	}
	fmt.Fprint(out, "Type yes to go on: ")
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return &UsageError{errors.New("teardown --wipe: not confirmed")}
	}
	if strings.TrimSpace(line) != "yes" {
		return &UsageError{errors.New("teardown --wipe: not confirmed; nothing was done")}
	}
	return nil
}
