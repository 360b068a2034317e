package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/remote"
)

// remoteFlags are the connection flags exec, put and get share.
func remoteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "plan", Usage: "plan file whose hosts to use"},
		&cli.StringSliceFlag{Name: "hosts", Usage: "`nodes`, workload, all (the default), or host names (comma-separated or repeated)"},
		&cli.StringSliceFlag{Name: "target", Usage: "ad-hoc host `name=user@host:port` (repeatable; instead of --plan)"},
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` (default: the plan's, else ~/.ssh/known_hosts)"},
		&cli.BoolFlag{Name: "accept-new-host-keys", Usage: "add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused"},
		&cli.BoolFlag{Name: "create-known-hosts", Usage: "with --accept-new-host-keys, create the known_hosts file if it does not exist (only ~/.ssh/known_hosts is created without it)"},
		&cli.BoolFlag{Name: "insecure-ignore-host-keys", Usage: "DANGEROUS: do not check host keys at all (throwaway machines only)"},
		&cli.StringSliceFlag{Name: "identity", Aliases: []string{"i"}, Usage: "private key `FILE` to offer (repeatable; after ssh-agent's keys)"},
		&cli.StringFlag{Name: "ssh-config", Usage: "ssh_config `FILE` to read (default ~/.ssh/config; \"none\" for none)"},
		&cli.IntFlag{Name: "concurrency", Usage: "hosts at once (default: the plan's, else 32)"},
	}
}

// targetsFrom is the host list of --plan/--hosts or of --target flags.
func targetsFrom(c *cli.Context) ([]remote.Target, *remote.SSHConfig, error) {
	cfg := &remote.SSHConfig{}
	var targets []remote.Target
	switch {
	case c.IsSet("plan") && c.IsSet("target"):
		return nil, nil, withExit(exitUsage, errors.New("use --plan or --target, not both"))
	case c.IsSet("plan"):
		p, err := loadPlan(c.String("plan"))
		if err != nil {
			return nil, nil, err
		}
		if targets, err = p.Targets(hostSelector(c)); err != nil {
			return nil, nil, withExit(exitUsage, err)
		}
		*cfg = p.RemoteConfig()
		if p.SSH.Concurrency > 0 && !c.IsSet("concurrency") {
			_ = c.Set("concurrency", strconv.Itoa(p.SSH.Concurrency))
		}
	case c.IsSet("target"):
		for _, spec := range c.StringSlice("target") {
			t, err := remote.ParseTarget(spec)
			if err != nil {
				return nil, nil, withExit(exitUsage, fmt.Errorf("--%w", err))
			}
			targets = append(targets, t)
		}
		var err error
		if targets, err = remote.SelectTargets(targets, hostSelector(c)); err != nil {
			return nil, nil, withExit(exitUsage, fmt.Errorf("--hosts: %w", err))
		}
	default:
		return nil, nil, withExit(exitUsage, errors.New("name the hosts with --plan PLAN [--hosts ...] or --target name=user@host:port"))
	}
	if len(targets) == 0 {
		return nil, nil, withExit(exitUsage, fmt.Errorf("--hosts %s selects no host", hostSelector(c)))
	}
	if f := c.String("known-hosts"); f != "" {
		cfg.KnownHostsFiles = []string{f}
	}
	if f := c.String("ssh-config"); f != "" {
		cfg.SSHConfigFile = f
	}
	cfg.IdentityFiles = append(cfg.IdentityFiles, c.StringSlice("identity")...)
	switch {
	case c.Bool("insecure-ignore-host-keys") && c.Bool("accept-new-host-keys"):
		return nil, nil, withExit(exitUsage, errors.New("--insecure-ignore-host-keys and --accept-new-host-keys exclude each other"))
	case c.Bool("insecure-ignore-host-keys"):
		fmt.Fprintln(c.App.ErrWriter, "benchrig: WARNING: host keys are NOT checked (--insecure-ignore-host-keys): anyone on the path can impersonate these hosts")
		cfg.HostKeyPolicy = remote.HostKeysInsecureIgnore
	case c.Bool("accept-new-host-keys"):
		cfg.HostKeyPolicy = remote.HostKeysAcceptNew
	}
	cfg.CreateKnownHosts = c.Bool("create-known-hosts")
	return targets, cfg, nil
}

// hostSelector is --hosts as orchestrator.Plan.Targets takes it.
func hostSelector(c *cli.Context) string {
	sel := strings.Join(c.StringSlice("hosts"), ",")
	if sel == "" {
		return "all"
	}
	return sel
}

// newRemote builds the SSH executor for a command's flags.
func newRemote(c *cli.Context, progress bool) (*remote.SSH, error) {
	targets, cfg, err := targetsFrom(c)
	if err != nil {
		return nil, err
	}
	cfg.Output = c.App.Writer
	if progress && isTerminal(c.App.ErrWriter) {
		cfg.Progress = c.App.ErrWriter
	}
	s, err := remote.NewSSH(targets, *cfg)
	if err != nil {
		return nil, withExit(exitTransport, err)
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(c.App.ErrWriter, "benchrig: warning: %s\n", w)
	}
	return s, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// fanOut runs fn on every host of s, at most --concurrency at once, with
// the per-host summary on stderr.
func fanOut(c *cli.Context, s *remote.SSH, fn func(ctx context.Context, host string) error) error {
	return remote.EachSummarized(c.Context, c.App.ErrWriter, s.Hosts(), c.Int("concurrency"), fn)
}

// execCommand: benchrig exec --plan PLAN --hosts ... -- CMD ARGS...
func execCommand() *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "run a command on plan hosts, output prefixed with the host name",
		ArgsUsage: "-- CMD [ARGS...]",
		Description: "The command is an argument vector, quoted for the remote shell word by word: " +
			"`benchrig exec --hosts nodes -- ls -l '/var/log/my dir'` runs exactly that. " +
			"For shell syntax, run a shell: -- sh -c 'ulimit -n; df -h /'.",
		Flags: append(remoteFlags(),
			&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `D` (SIGTERM, then SIGKILL)"},
			&cli.BoolFlag{Name: "stdin", Usage: "read standard input once and send it to the command on every host (like pssh -I): -- sh -s < script.sh"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return withExit(exitUsage, errors.New("exec: give the command after --"))
			}
			s, err := newRemote(c, false)
			if err != nil {
				return err
			}
			defer s.Close()
			cmd := remote.Cmd{Args: c.Args().Slice(), Timeout: c.Duration("timeout")}
			if c.Bool("stdin") {
				b, err := io.ReadAll(c.App.Reader)
				if err != nil {
					return fmt.Errorf("exec: read stdin: %w", err)
				}
				cmd.Stdin = string(b)
			}
			return fanOut(c, s, func(ctx context.Context, host string) error {
				_, err := s.Run(ctx, host, cmd)
				return err
			})
		},
	}
}

// putCommand: benchrig put [--mode 0755] LOCAL REMOTE
func putCommand() *cli.Command {
	return &cli.Command{
		Name:      "put",
		Usage:     "upload a file to plan hosts (sha256-checked, atomic, skipped when unchanged)",
		ArgsUsage: "LOCAL REMOTE",
		Flags: append(remoteFlags(),
			&cli.StringFlag{Name: "mode", Usage: "octal mode of the remote file (default: the local file's)"},
			&cli.StringFlag{Name: "sha256", Usage: "expected sha256 of the file"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return withExit(exitUsage, errors.New("put: give LOCAL and REMOTE"))
			}
			t := remote.Transfer{Local: c.Args().Get(0), Remote: c.Args().Get(1), SHA256: c.String("sha256")}
			if m := c.String("mode"); m != "" {
				v, err := strconv.ParseUint(m, 8, 32)
				if err != nil || v > 0o7777 {
					return withExit(exitUsage, fmt.Errorf("put: --mode %q is not an octal mode", m))
				}
				t.Mode = os.FileMode(v)
			}
			if _, err := os.Stat(t.Local); err != nil {
				return withExit(exitUsage, fmt.Errorf("put: %w", err))
			}
			s, err := newRemote(c, true)
			if err != nil {
				return err
			}
			defer s.Close()
			return fanOut(c, s, func(ctx context.Context, host string) error {
				start := time.Now()
				if err := s.Put(ctx, host, t); err != nil {
					return err
				}
				s.Console().Line(host, fmt.Sprintf("put %s (%.1fs)", t, time.Since(start).Seconds()))
				return nil
			})
		},
	}
}

// getCommand: benchrig get REMOTE LOCALDIR → LOCALDIR/<host>/<name>
func getCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "download a file from plan hosts into LOCALDIR/<host>/",
		ArgsUsage: "REMOTE LOCALDIR",
		Flags:     remoteFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return withExit(exitUsage, errors.New("get: give REMOTE and LOCALDIR"))
			}
			rpath, dir := c.Args().Get(0), c.Args().Get(1)
			s, err := newRemote(c, true)
			if err != nil {
				return err
			}
			defer s.Close()
			// Host names and the remote path become local path elements:
			// refuse before anything is fetched if one would leave dir.
			for _, host := range s.Hosts() {
				if _, err := remote.LocalPathFor(dir, host, rpath); err != nil {
					return withExit(exitUsage, fmt.Errorf("get: %w", err))
				}
			}
			return fanOut(c, s, func(ctx context.Context, host string) error {
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
		},
	}
}
