package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LocalConfig configures a Local executor.
type LocalConfig struct {
	// Output receives live output, host-prefixed; nil discards it.
	Output io.Writer
	// Hosts are the names Local answers to (for the prefix width and to
	// catch typos); empty accepts any name.
	Hosts        []string
	KillGrace    time.Duration // default DefaultKillGrace
	CaptureBytes int           // default DefaultCaptureBytes
}

// Local runs commands on this machine, for plans whose hosts are all
// localhost and for tests: `sh -c ShellJoin(c)`, so a command means the
// same here as over SSH. Put and Get are local copies with the same
// checksum, skip and atomic-rename behaviour as the SSH executor.
type Local struct {
	cfg     LocalConfig
	hosts   map[string]bool
	console *Console
}

// NewLocal returns a Local executor.
func NewLocal(cfg LocalConfig) *Local {
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	if cfg.CaptureBytes <= 0 {
		cfg.CaptureBytes = DefaultCaptureBytes
	}
	l := &Local{cfg: cfg, console: NewConsole(cfg.Output, cfg.Hosts)}
	if len(cfg.Hosts) > 0 {
		l.hosts = map[string]bool{}
		for _, h := range cfg.Hosts {
			l.hosts[h] = true
		}
	}
	return l
}

func (l *Local) check(host string) error {
	if l.hosts != nil && !l.hosts[host] {
		return &UnknownHostError{Host: host}
	}
	return nil
}

// Run runs c through sh in its own process group; a timeout or
// cancellation sends SIGTERM to the group, then SIGKILL after KillGrace.
// Errors are typed as for SSH.Run.
func (l *Local) Run(ctx context.Context, host string, c Cmd) (Result, error) {
	start := time.Now()
	res := Result{Host: host, ExitCode: -1}
	if err := l.check(host); err != nil {
		return res, err
	}
	stdin, err := c.RevealStdin()
	if err != nil {
		return res, fmt.Errorf("host %s: %w", host, err)
	}
	line := ShellJoin(c)
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, errCmdTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = l.cfg.KillGrace
	outTail := &tailBuffer{max: l.cfg.CaptureBytes}
	errTail := &tailBuffer{max: l.cfg.CaptureBytes}
	cmd.Stdout, cmd.Stderr = outTail, errTail
	var outLive, errLive *LineWriter
	if c.live() {
		outLive, errLive = l.console.Writer(host), l.console.Writer(host)
		cmd.Stdout = io.MultiWriter(outTail, outLive)
		cmd.Stderr = io.MultiWriter(errTail, errLive)
	}
	if c.Tap != nil {
		cmd.Stdout = io.MultiWriter(cmd.Stdout, c.Tap)
	}
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err = cmd.Run()
	if cmd.Process != nil {
		// Stragglers that ignored TERM or outlived sh.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	outLive.Close()
	errLive.Close()
	res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
	res.Duration = time.Since(start)
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errCmdTimeout) {
			return res, &TimeoutError{Host: host, Cmd: line, Timeout: c.Timeout, StderrTail: lastLines(res.Stderr, 5)}
		}
		return res, fmt.Errorf("host %s: %s: stopped: %w", host, line, ctx.Err())
	}
	if err == nil {
		res.ExitCode = 0
		return res, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		xe := &ExitError{Host: host, Cmd: line, Code: ee.ExitCode(), StderrTail: lastLines(res.Stderr, 5)}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			xe.Code = -1
			xe.Signal = strings.TrimPrefix(unix.SignalName(ws.Signal()), "SIG")
		}
		res.ExitCode = xe.Code
		return res, xe
	}
	return res, fmt.Errorf("host %s: run %s: %w", host, line, err)
}

// Put copies t.Local to t.Remote on this machine.
func (l *Local) Put(ctx context.Context, host string, t Transfer) error {
	if err := l.check(host); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.Gzip {
		// Only plan hosts are sent a gzip stream (the install's
		// distribution); this machine never is.
		return fmt.Errorf("host %s: put %s: a gzip put is made only over SSH", host, t)
	}
	if err := copyLocal(t.Local, t.Remote, t.Mode, t.SHA256); err != nil {
		return fmt.Errorf("host %s: put %s: %w", host, t, err)
	}
	return nil
}

// Get copies t.Remote to t.Local on this machine.
func (l *Local) Get(ctx context.Context, host string, t Transfer) error {
	if err := l.check(host); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := copyLocal(t.Remote, t.Local, t.Mode, t.SHA256); err != nil {
		return fmt.Errorf("host %s: get %s: %w", host, t, err)
	}
	return nil
}
