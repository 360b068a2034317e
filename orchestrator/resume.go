package orchestrator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// Resume finishes the run in runDir from its state: finished steps are
// skipped, detached jobs re-attached, killed ones started again. from, if
// set, reruns that stage and every later one. The run's plan copy must be
// the one it started with and compile to the steps the state recorded,
// unless o.Force.
func Resume(ctx context.Context, runDir, from string, o Options) error {
	if _, err := os.Stat(filepath.Join(runDir, rundir.StateFile)); err != nil {
		return &UsageError{fmt.Errorf("resume: %s is not a run directory: %w", runDir, err)}
	}
	// The lock comes first: a second resume of a live run must not even
	// rewrite the state (--from) before it is refused.
	release, err := rundir.Lock(runDir)
	if err != nil {
		var le *rundir.LockedError
		if errors.As(err, &le) {
			return &UsageError{fmt.Errorf("resume: %w", err)}
		}
		return fmt.Errorf("resume: %w", err)
	}
	defer release()
	st, err := rundir.Open(runDir)
	if err != nil {
		return err
	}
	data, err := plan.ReadPlanFile(filepath.Join(runDir, rundir.PlanFile))
	if err != nil {
		return err
	}
	p, err := loadRunPlan(runDir, st, plan.Options{AllowSettings: o.AllowSettings})
	if err != nil {
		return err
	}
	copt := stages.Options{Only: st.Options.Only, From: st.Options.From, Until: st.Options.Until, DriverPath: st.Options.DriverPath, SkipPreflight: st.Options.SkipPreflight}
	list, err := stages.Compile(p, copt)
	if err != nil {
		return err
	}
	if err := PinUploads(list); err != nil {
		return err
	}
	if err := st.Matches(list); err != nil {
		return &UsageError{fmt.Errorf("resume %s: %w; start a new run", runDir, err)}
	}
	if err := checkUnchanged(o.ErrOut, runDir, data, st, list, o.Force); err != nil {
		return err
	}
	if from != "" {
		if err := st.Restart(from); err != nil {
			return &UsageError{err}
		}
	}
	fmt.Fprintf(o.Out, "resuming %s (plan %s)\n", runDir, p.Name)
	return execute(ctx, runDir, p, list, st, o)
}

// checkUnchanged refuses a resume whose plan copy is not the file the run
// started with (its sha256) or whose steps compile differently from the
// ones the state recorded, with a short summary of what changed; force
// accepts the change and makes the state describe the new plan.
func checkUnchanged(errOut io.Writer, runDir string, plan []byte, st *rundir.State, list []stages.Stage, force bool) error {
	sum := sha256.Sum256(plan)
	planSum := hex.EncodeToString(sum[:])
	changes := st.Changes(list)
	if planSum == st.PlanSum && len(changes) == 0 {
		return nil
	}
	var b strings.Builder
	if planSum != st.PlanSum {
		fmt.Fprintf(&b, "%s has sha256 %.12s…, the run started with %.12s…", filepath.Join(runDir, rundir.PlanFile), planSum, st.PlanSum)
	} else {
		b.WriteString("the plan compiles to different steps than the ones the run recorded (a referenced file or the benchrig version changed)")
	}
	if len(changes) == 0 {
		b.WriteString("; no compiled step changed")
	} else {
		b.WriteString("; changed:")
	}
	const show = 8
	for i, c := range changes {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more stages", len(changes)-show)
			break
		}
		b.WriteString("\n  " + c)
	}
	if !force {
		return &UsageError{fmt.Errorf("resume %s: %s\nfinished steps would not be run again: start a new run, or resume with --force to go on anyway", runDir, b.String())}
	}
	fmt.Fprintf(errOut, "benchrig: warning: resuming with --force: %s\n", b.String())
	return st.Rebase(list, planSum)
}
