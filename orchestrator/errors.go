package orchestrator

import (
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
)

// The typed errors cmd maps to exit codes.
type (
	// PlanError lists every problem of a plan as file:line:col.
	PlanError = plan.PlanError
	// PreflightError says the preflight checks failed on some hosts.
	PreflightError = stages.PreflightError
	// CheckFailedError says the run finished but a benchmark check failed.
	CheckFailedError = runner.CheckFailedError
	// StepError names the stage, host and step that failed.
	StepError = runner.StepError
)

// UsageError is a request that cannot be carried out as asked: an unknown
// stage in --only, --from or --until, or a stage the plan does not have.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ConnectError says the SSH executor could not be set up (known_hosts,
// keys, ssh_config).
type ConnectError struct{ Err error }

func (e *ConnectError) Error() string { return e.Err.Error() }
func (e *ConnectError) Unwrap() error { return e.Err }

// MaxPlanSize is the largest plan file accepted, in bytes.
const MaxPlanSize = plan.MaxPlanSize
