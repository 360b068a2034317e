package remote

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// TimeoutError is a command stopped because its Cmd.Timeout expired: it
// was sent SIGTERM (then SIGKILL after a grace period) and its session
// closed. It matches errors.Is(err, context.DeadlineExceeded). It is
// neither an ExitError (the command did not choose to fail) nor a
// TransportError (the connection was fine), so summaries can report
// "timed out" on its own.
type TimeoutError struct {
	Host    string
	Cmd     string // ShellJoin of the command
	Timeout time.Duration
	// StderrTail is the end of the command's stderr when it was stopped.
	StderrTail string
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("host %s: command timed out after %v%s", e.Host, e.Timeout, quoteTail(e.StderrTail))
}

// Unwrap lets errors.Is(err, context.DeadlineExceeded) hold.
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// UnknownHostError is a host name the executor was not given a Target
// for: a bug in the caller's plan handling, not a network problem.
type UnknownHostError struct{ Host string }

func (e *UnknownHostError) Error() string {
	return fmt.Sprintf("host %s: not one of the executor's targets", e.Host)
}

// NotStarted says whether err is a transport failure from before a
// command could start: the connection or its session could not be opened
// (dial, handshake, jump host, session). Such a command did not run and
// may be sent again whatever it does; after any other transport failure
// it may have run.
func NotStarted(err error) bool {
	var te *TransportError
	if !errors.As(err, &te) {
		return false
	}
	switch op, _, _ := strings.Cut(te.Op, " "); op {
	case "connect", "session", "dial", "handshake", "jump":
		return true
	}
	return false
}

// RefusedError is a file a host offered that benchrig will not take: not
// a regular file (a symlink, FIFO, device, directory), larger than the
// transfer's bound, or whose content does not match the sha256 the host
// itself reported. Nothing of it is left on this machine. It is the
// host's fault, not the connection's: repeating the download cannot help.
type RefusedError struct {
	Host, Path string
	Reason     string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("host %s: refused %s: %s", e.Host, e.Path, e.Reason)
}
