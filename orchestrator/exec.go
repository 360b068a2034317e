package orchestrator

import (
	"context"

	"github.com/benchrig/benchrig/remote"
)

// Executor is what the orchestrator needs from the layer that reaches
// hosts. remote.SSH, remote.Local and remote.Recorder (dry-run) satisfy
// it. Hosts are named as in the plan; the executor maps names to
// addresses.
//
// Run returns a *remote.ExitError when the command exited non-zero and a
// *remote.TransportError when the host could not be reached or the
// connection broke.
type Executor interface {
	Run(ctx context.Context, host string, c remote.Cmd) (remote.Result, error)
	Put(ctx context.Context, host string, t remote.Transfer) error
	Get(ctx context.Context, host string, t remote.Transfer) error
}
