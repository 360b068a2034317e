package pipelined

import "github.com/benchrig/benchrig/tpcc"

// Profile is tpcc.ProfilePipelined: benchrig's transactions (new_order.go,
// payment.go, ...; the worker is its Executor), paced as the spec's
// terminals are.
type Profile struct{ tpcc.SpecPacing }

// Name is tpcc.ProfilePipelined.
func (Profile) Name() tpcc.Profile { return tpcc.ProfilePipelined }

// NewExecutor is a worker of the session.
func (Profile) NewExecutor(s tpcc.Session) tpcc.Executor { return newWorker(s) }
