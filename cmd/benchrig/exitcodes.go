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

// exitError attaches an exit code to an error. Packages below cmd/ return
// typed errors; this is the only place those types are mapped to codes.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExit marks err with an exit code (nil stays nil).
func withExit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// exitClassifiers map typed errors of the packages to codes, first match
// wins. Files that add a package's error types append here in an init-free
// way: by listing them in this table.
var exitClassifiers = []func(error) (int, bool){
	func(err error) (int, bool) {
		var pe *orchestrator.PlanError
		return exitInvalidPlan, errors.As(err, &pe)
	},
	func(err error) (int, bool) {
		var ue *orchestrator.UsageError
		var te *tpcc.UsageError
		return exitUsage, errors.As(err, &ue) || errors.As(err, &te)
	},
	func(err error) (int, bool) {
		var ce *orchestrator.ConnectError
		return exitTransport, errors.As(err, &ce)
	},
	func(err error) (int, bool) {
		var ie *orchestrator.IncompleteError
		var ge *gate.IncompleteError
		return exitIncomplete, errors.As(err, &ie) || errors.As(err, &ge)
	},
	func(err error) (int, bool) {
		var pe *orchestrator.PreflightError
		var ce *orchestrator.CheckFailedError
		var ge *gate.FailedError
		var ae *tpcc.AuditError
		var crudCheck *crud.CheckError
		var mergeCheck *histogram.CheckError
		return exitCheck, errors.As(err, &pe) || errors.As(err, &ce) || errors.As(err, &ge) || errors.As(err, &ae) || errors.As(err, &crudCheck) || errors.As(err, &mergeCheck) || tpcc.IsViolation(err)
	},
	// remote: a transport problem on any host outranks command failures
	// (it says nothing about the command), as pssh's 4 before 5.
	func(err error) (int, bool) {
		var te *remote.TransportError
		return exitTransport, errors.As(err, &te)
	},
	func(err error) (int, bool) {
		var xe *remote.ExitError
		var to *remote.TimeoutError
		return exitRemote, errors.As(err, &xe) || errors.As(err, &to)
	},
	func(err error) (int, bool) {
		var uh *remote.UnknownHostError
		return exitUsage, errors.As(err, &uh)
	},
}

func exitCode(ctx context.Context, err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if ctx.Err() != nil {
		// Interrupted: whatever failed after the signal (a cancelled
		// session, a stopped command) failed because of it.
		return exitInterrupted
	}
	for _, classify := range exitClassifiers {
		if code, ok := classify(err); ok {
			return code
		}
	}
	var ce cli.ExitCoder
	if errors.As(err, &ce) {
		return ce.ExitCode()
	}
	return exitInternal
}
