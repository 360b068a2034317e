package runner

import (
	"context"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// Executor is what the runner needs from the layer that reaches hosts.
// remote.SSH, remote.Local and remote.Recorder (dry-run) satisfy it.
// Hosts are named as in the plan; the executor maps names to addresses.
//
// Run returns a *remote.ExitError when the command exited non-zero and a
// *remote.TransportError when the host could not be reached or the
// connection broke.
type Executor interface {
	Run(ctx context.Context, host string, c remote.Cmd) (remote.Result, error)
	Put(ctx context.Context, host string, t remote.Transfer) error
	Get(ctx context.Context, host string, t remote.Transfer) error
}

// JobExecutor is an optional Executor capability: an executor that runs
// detached jobs itself. The Recorder has it, so that a dry-run lists a
// job as one line; for the others the Runner drives remote.Job over Run.
type JobExecutor interface {
	StartJob(ctx context.Context, j remote.Job, c remote.Cmd) error
	WaitJob(ctx context.Context, j remote.Job) (remote.JobStatus, error)
}

// JobStopper is an optional Executor capability: an executor that stops
// detached jobs itself (the Recorder, so the dry-run lists a stop as one
// line).
type JobStopper interface {
	StopJob(ctx context.Context, j remote.Job) error
}

// Progress is what an earlier attempt of the run finished: the resume
// points. rundir.State implements it; a fresh run has none.
type Progress interface {
	// StageDone says stage i finished (it is skipped).
	StageDone(i int) bool
	// StepsDone is how many of host's steps of stage i finished, in order.
	StepsDone(i int, host string) int
	// Attempt counts forced reruns of stage i on host (resume --from), so
	// that a rerun's detached job is not mistaken for the earlier one.
	Attempt(i int, host string) int
	// SearchPoints are the verdicts a search stage already has.
	SearchPoints(i int) []stages.SearchPoint
}
