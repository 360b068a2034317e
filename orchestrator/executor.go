package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/result"
)

// planExecutor sends plan hosts to SSH and LocalHost to this machine,
// where "benchrig" is this executable and relative paths are the run
// directory's.
type planExecutor struct {
	ssh    *remote.SSH
	local  *remote.Local
	self   string
	runDir string
	out    io.Writer // the console and output.log
}

// newPlanExecutor's hostOut gets the plan hosts' live output, localOut
// this machine's (the merged result); notices, if not nil (the screen when
// hostOut is only output.log), the line saying a host's output was cut
// (remote.LiveHead).
func newPlanExecutor(p *plan.Plan, runDir string, hostOut, localOut, notices io.Writer, o Options) (*planExecutor, func(), error) {
	targets, err := p.Targets("all")
	if err != nil {
		return nil, nil, err
	}
	cfg := p.RemoteConfig()
	cfg.Output, cfg.Notices = hostOut, notices
	if o.Connect.KnownHosts != "" {
		cfg.KnownHostsFiles = []string{o.Connect.KnownHosts}
	}
	if o.Connect.Identity != "" {
		cfg.IdentityFiles = append(cfg.IdentityFiles, o.Connect.Identity)
	}
	if o.Connect.AcceptNewHostKeys {
		cfg.HostKeyPolicy = remote.HostKeysAcceptNew
	}
	cfg.CreateKnownHosts = o.Connect.CreateKnownHosts
	cfg.Progress = o.Connect.Progress
	s, err := remote.NewSSH(targets, cfg)
	if err != nil {
		return nil, nil, &ConnectError{err}
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(o.ErrOut, "benchrig: warning: %s\n", w)
	}
	self, _ := os.Executable()
	abs, _ := filepath.Abs(runDir)
	e := &planExecutor{
		ssh:    s,
		local:  remote.NewLocal(remote.LocalConfig{Output: localOut, Hosts: []string{stages.LocalHost}}),
		self:   self,
		runDir: abs,
		out:    localOut,
	}
	return e, func() { s.Close() }, nil
}

func (e *planExecutor) Run(ctx context.Context, host string, c remote.Cmd) (remote.Result, error) {
	if host != stages.LocalHost {
		return e.ssh.Run(ctx, host, c)
	}
	if len(c.Args) > 0 && c.Args[0] == "benchrig" {
		c.Args = append([]string{e.self}, c.Args[1:]...)
	}
	if c.Dir == "" {
		c.Dir = e.runDir
	}
	return e.local.Run(ctx, host, c)
}

// Connect redials a plan host (the runner's re-attach asks it whether the
// host is back); this machine is always there.
func (e *planExecutor) Connect(ctx context.Context, host string) error {
	if host == stages.LocalHost {
		return nil
	}
	return e.ssh.Connect(ctx, host)
}

func (e *planExecutor) Put(ctx context.Context, host string, t remote.Transfer) error {
	return e.ssh.Put(ctx, host, e.inRunDir(t))
}

// Get downloads into the run directory. A file the host offers that is
// refused (remote.RefusedError: not a regular file, past its bound) does
// not stop the run: a refusal record takes its place, the merge leaves
// that host out and names it, and the other hosts' results stand. Any
// other failure (a dropped link) is the step's, to be repeated.
func (e *planExecutor) Get(ctx context.Context, host string, t remote.Transfer) error {
	t = e.inRunDir(t)
	err := e.ssh.Get(ctx, host, t)
	var re *remote.RefusedError
	switch {
	case errors.As(err, &re) && t.MaxBytes > 0:
		if werr := result.WriteRefused(t.Local, re.Reason); werr != nil {
			return fmt.Errorf("%w (and its record: %v)", err, werr)
		}
		fmt.Fprintf(e.out, "%s: %v: left out of the merge\n", host, err)
		return nil
	case err == nil && t.MaxBytes > 0:
		return result.ClearRefused(t.Local)
	}
	return err
}

func (e *planExecutor) inRunDir(t remote.Transfer) remote.Transfer {
	if !filepath.IsAbs(t.Local) {
		t.Local = filepath.Join(e.runDir, t.Local)
	}
	return t
}

// syncWriter serializes writes: the console and the hosts' live output
// share the terminal and output.log.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
