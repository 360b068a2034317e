package main

import (
	"context"
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/crud"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/gate"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/command"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// The exit codes, in one table. Documented in --help and README.md.
const (
	exitOK          = 0   // success
	exitInternal    = 1   // anything not classified below
	exitUsage       = 2   // bad flags or arguments
	exitInvalidPlan = 3   // the plan failed to parse or validate
	exitTransport   = 10  // SSH/SFTP connection problem (host unreachable, key refused, dropped)
	exitRemote      = 20  // a remote command exited non-zero
	exitCheck       = 30  // a benchmark check failed (consistency, audit, efficiency, check-result thresholds)
	exitIncomplete  = 40  // the result is incomplete: a measured run died on a workload host (check-result refuses it)
	exitInterrupted = 130 // interrupted by a signal
)

const exitCodeHelp = `EXIT STATUS
   0    success
   1    internal error
   2    usage error (bad flags or arguments)
   3    invalid plan
   10   SSH/SFTP transport error
   20   a remote command failed
   30   a benchmark check failed (consistency, audit, efficiency, check-result thresholds)
   40   the result is incomplete: a measured run died on a workload host (check-result refuses it)
   130  interrupted`

// usageError is a command line cmd itself finds wrong (an argument
// missing, a flag that does not parse): exit 2. Packages below cmd/
// return their own typed errors, which exitTable maps to codes.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usage marks err as a usage error.
func usage(err error) error { return usageError{err} }

// is says whether err wraps an error of type T.
func is[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// exitTable maps the packages' typed errors to exit codes, the only place
// that does: the first row that matches wins.
var exitTable = []struct {
	code int
	is   func(error) bool
}{
	{exitInvalidPlan, is[*orchestrator.PlanError]},
	{exitInvalidPlan, is[*orchestrator.InvalidPlansError]},
	{exitUsage, is[*orchestrator.UsageError]},
	{exitUsage, is[*command.UsageError]},
	{exitTransport, is[*orchestrator.ConnectError]},
	{exitIncomplete, is[*orchestrator.IncompleteError]},
	{exitIncomplete, is[*gate.IncompleteError]},
	{exitIncomplete, is[*command.IncompleteError]},
	{exitCheck, is[*orchestrator.PreflightError]},
	{exitCheck, is[*orchestrator.CheckFailedError]},
	{exitCheck, is[*gate.FailedError]},
	{exitCheck, is[*tpcc.AuditError]},
	{exitCheck, is[*crud.CheckError]},
	{exitCheck, is[*histogram.CheckError]},
	{exitCheck, tpcc.IsViolation},
	// A transport problem on any host outranks command failures (it says
	// nothing about the command), as pssh's 4 before 5.
	{exitTransport, is[*remote.TransportError]},
	{exitRemote, is[*remote.ExitError]},
	{exitRemote, is[*remote.TimeoutError]},
	{exitUsage, is[*remote.UnknownHostError]},
}

func exitCode(ctx context.Context, err error) int {
	if is[usageError](err) {
		return exitUsage
	}
	if ctx.Err() != nil {
		// Interrupted: whatever failed after the signal (a cancelled
		// session, a stopped command) failed because of it.
		return exitInterrupted
	}
	for _, row := range exitTable {
		if row.is(err) {
			return row.code
		}
	}
	if ce := cli.ExitCoder(nil); errors.As(err, &ce) {
		return ce.ExitCode()
	}
	return exitInternal
}
