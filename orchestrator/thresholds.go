package orchestrator

import (
	"fmt"
	"io"

	"github.com/benchrig/benchrig/internal/termsafe"
	"github.com/benchrig/benchrig/orchestrator/compare"
	"github.com/benchrig/benchrig/orchestrator/gate"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
)

// ThresholdsError is a run that finished but missed its plan's
// thresholds; cmd maps it to exit 30 like check-result's failures.
type ThresholdsError = gate.FailedError

// judgeRun reads the report a finished run just wrote: it prints the
// report's warnings (a client-bound driver) and checks the plan's
// thresholds, returning a *ThresholdsError with the one-line reason.
func judgeRun(errOut io.Writer, runDir string, p *plan.Plan) error {
	run, err := compare.Load(runDir)
	if err != nil {
		fmt.Fprintf(errOut, "benchrig: report: %s\n", termsafe.String(err.Error())) // it may quote a host's file
		return nil
	}
	for _, w := range run.Report.Warnings {
		fmt.Fprintf(errOut, "benchrig: warning: %s\n", termsafe.String(w))
	}
	if pub := run.Report.Published; pub != nil && len(run.Report.IncompleteHosts()) == 0 {
		fmt.Fprintf(errOut, "benchrig: %s\n", pub.Line())
	}
	if hosts := run.Report.IncompleteHosts(); len(hosts) > 0 {
		// No measured run died (that ends the run before), but a host's
		// files were refused and left out of the merge: its result is
		// not the run's, whatever the thresholds.
		return &gate.IncompleteError{Run: runDir, Hosts: hosts}
	}
	if p.Thresholds == nil {
		return nil
	}
	if run.Report.Result == nil && len(run.Report.Rounds) == 0 {
		// Stages without the run (--only install): nothing to judge.
		fmt.Fprintf(errOut, "benchrig: the plan's thresholds were not checked: the run has no TPC-C result\n")
		return nil
	}
	return gate.Check(run, *p.Thresholds, nil)
}

// PlanThresholds are the thresholds of the plan the run in runDir ran
// (its plan copy), nil when it has none: what `check-result RUN` checks
// without flags.
func PlanThresholds(runDir string) (*plan.Thresholds, error) {
	p, err := runPlan(runDir)
	if err != nil {
		return nil, err
	}
	return p.Thresholds, nil
}

// runPlan is the plan the run in runDir ran (its plan copy), read only.
func runPlan(runDir string) (*plan.Plan, error) {
	st, err := rundir.Open(runDir)
	if err != nil {
		return nil, err
	}
	return loadRunPlan(runDir, st, plan.Options{ReadOnly: true})
}
