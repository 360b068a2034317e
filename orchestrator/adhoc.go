package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// AdHoc are the host and connection choices of exec, put and get: the
// hosts of a plan (Plan, Hosts) or ad-hoc targets (Targets), and how to
// reach them. The command line writes its flags straight into it.
type AdHoc struct {
	Plan string `flag:"plan" usage:"plan file whose hosts to use"`
	// Nodes, workload, all, or host names; empty: all.
	Hosts []string `flag:"hosts" usage:"nodes, workload, all (the default), or host names (comma-separated or repeated)" arg:"nodes"`
	// Hosts without a plan: name=user@host:port.
	Targets    []string `flag:"target" usage:"ad-hoc host name=user@host:port (repeatable; instead of --plan)" arg:"name=user@host:port"`
	KnownHosts string   `flag:"known-hosts" usage:"known_hosts FILE (default: the plan's, else ~/.ssh/known_hosts)" arg:"FILE"`
	AcceptNew  bool     `flag:"accept-new-host-keys" usage:"add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused"`
	// CreateKnownHosts lets accept-new create a known_hosts file that
	// does not exist (remote.SSHConfig.CreateKnownHosts).
	CreateKnownHosts bool `flag:"create-known-hosts" usage:"with --accept-new-host-keys, create the known_hosts file if it does not exist (only ~/.ssh/known_hosts is created without it)"`
	// No host key checking at all.
	Insecure    bool     `flag:"insecure-ignore-host-keys" usage:"DANGEROUS: do not check host keys at all (throwaway machines only)"`
	Identities  []string `flag:"identity,i" usage:"private key FILE to offer (repeatable; after ssh-agent's keys)" arg:"FILE"`
	SSHConfig   string   `flag:"ssh-config" usage:"ssh_config FILE to read (default ~/.ssh/config; \"none\" for none)" arg:"FILE"`
	Concurrency int      `flag:"concurrency" usage:"hosts at once (default: the plan's, else 32)"`

	Out, ErrOut io.Writer
	Progress    io.Writer // transfer progress bars (a terminal), or nil
	// Stdin, if set, is read once and sent to exec's command on every
	// host (exec --stdin, like pssh -I).
	Stdin io.Reader
}

// selector is Hosts as plan.Targets takes it.
func (a *AdHoc) selector() string {
	if sel := strings.Join(a.Hosts, ","); sel != "" {
		return sel
	}
	return "all"
}

// connect resolves the hosts and opens the SSH executor; the returned
// concurrency is the plan's when none was asked for.
func (a *AdHoc) connect() (*remote.SSH, int, error) {
	cfg := remote.SSHConfig{}
	conc := a.Concurrency
	var targets []remote.Target
	switch {
	case a.Plan != "" && len(a.Targets) > 0:
		return nil, 0, &UsageError{errors.New("use --plan or --target, not both")}
	case a.Plan != "":
		p, err := LoadPlan(a.Plan)
		if err != nil {
			return nil, 0, err
		}
		if targets, err = p.Targets(a.selector()); err != nil {
			return nil, 0, &UsageError{err}
		}
		cfg = p.RemoteConfig()
		if conc == 0 {
			conc = p.SSH.Concurrency
		}
	case len(a.Targets) > 0:
		for _, spec := range a.Targets {
			t, err := remote.ParseTarget(spec)
			if err != nil {
				return nil, 0, &UsageError{fmt.Errorf("--%w", err)}
			}
			targets = append(targets, t)
		}
		var err error
		if targets, err = remote.SelectTargets(targets, a.selector()); err != nil {
			return nil, 0, &UsageError{fmt.Errorf("--hosts: %w", err)}
		}
	default:
		return nil, 0, &UsageError{errors.New("name the hosts with --plan PLAN [--hosts ...] or --target name=user@host:port")}
	}
	if len(targets) == 0 {
		return nil, 0, &UsageError{fmt.Errorf("--hosts %s selects no host", a.selector())}
	}
	if a.KnownHosts != "" {
		cfg.KnownHostsFiles = []string{a.KnownHosts}
	}
	if a.SSHConfig != "" {
		cfg.SSHConfigFile = a.SSHConfig
	}
	cfg.IdentityFiles = append(cfg.IdentityFiles, a.Identities...)
	switch {
	case a.Insecure && a.AcceptNew:
		return nil, 0, &UsageError{errors.New("--insecure-ignore-host-keys and --accept-new-host-keys exclude each other")}
	case a.Insecure:
		fmt.Fprintln(a.ErrOut, "benchrig: WARNING: host keys are NOT checked (--insecure-ignore-host-keys): anyone on the path can impersonate these hosts")
		cfg.HostKeyPolicy = remote.HostKeysInsecureIgnore
	case a.AcceptNew:
		cfg.HostKeyPolicy = remote.HostKeysAcceptNew
	}
	cfg.CreateKnownHosts = a.CreateKnownHosts
	cfg.Output, cfg.Progress = a.Out, a.Progress
	s, err := remote.NewSSH(targets, cfg)
	if err != nil {
		return nil, 0, &ConnectError{err}
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(a.ErrOut, "benchrig: warning: %s\n", w)
	}
	return s, conc, nil
}

// each runs fn on every host, at most the concurrency at once, with the
// per-host summary on ErrOut.
func (a *AdHoc) each(ctx context.Context, fn func(s *remote.SSH, ctx context.Context, host string) error) error {
	s, conc, err := a.connect()
	if err != nil {
		return err
	}
	defer s.Close()
	return remote.EachSummarized(ctx, a.ErrOut, s.Hosts(), conc, func(ctx context.Context, host string) error {
		return fn(s, ctx, host)
	})
}

// Exec runs cmd on every host, output prefixed with the host's name.
func Exec(ctx context.Context, a AdHoc, cmd remote.Cmd) error {
	if len(cmd.Args) == 0 {
		return &UsageError{errors.New("exec: give the command after --")}
	}
	if a.Stdin != nil {
		b, err := io.ReadAll(a.Stdin)
		if err != nil {
			return fmt.Errorf("exec: read stdin: %w", err)
		}
		cmd.Stdin = string(b)
	}
	a.Progress = nil
	return a.each(ctx, func(s *remote.SSH, ctx context.Context, host string) error {
		_, err := s.Run(ctx, host, cmd)
		return err
	})
}

// ParseMode reads an octal file mode ("0755"); "" is the local file's.
func ParseMode(m string) (os.FileMode, error) {
	if m == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(m, 8, 32)
	if err != nil || v > 0o7777 {
		return 0, &UsageError{fmt.Errorf("--mode %q is not an octal mode", m)}
	}
	return os.FileMode(v), nil
}

// Put uploads t to every host (sha256-checked, atomic, skipped when
// unchanged), with the octal mode given (ParseMode).
func Put(ctx context.Context, a AdHoc, t remote.Transfer, mode string) error {
	var err error
	if t.Mode, err = ParseMode(mode); err != nil {
		return err
	}
	if _, err := os.Stat(t.Local); err != nil {
		return &UsageError{fmt.Errorf("put: %w", err)}
	}
	return a.each(ctx, func(s *remote.SSH, ctx context.Context, host string) error {
		start := time.Now()
		if err := s.Put(ctx, host, t); err != nil {
			return err
		}
		s.Console().Line(host, fmt.Sprintf("put %s (%.1fs)", t, time.Since(start).Seconds()))
		return nil
	})
}

// Get downloads rpath from every host into dir/<host>/. Host names and
// the remote path become local path elements: every host's local path is
// checked before anything is fetched, so none can leave dir.
func Get(ctx context.Context, a AdHoc, rpath, dir string) error {
	s, conc, err := a.connect()
	if err != nil {
		return err
	}
	defer s.Close()
	for _, host := range s.Hosts() {
		if _, err := remote.LocalPathFor(dir, host, rpath); err != nil {
			return &UsageError{fmt.Errorf("get: %w", err)}
		}
	}
	return remote.EachSummarized(ctx, a.ErrOut, s.Hosts(), conc, func(ctx context.Context, host string) error {
		local, err := remote.LocalPathFor(dir, host, rpath)
		if err != nil {
			return err
		}
		t := remote.Transfer{Local: local, Remote: rpath}
		if err := s.Get(ctx, host, t); err != nil {
			return err
		}
		s.Console().Line(host, "got "+t.Local)
		return nil
	})
}
