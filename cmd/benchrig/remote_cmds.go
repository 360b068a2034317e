package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/remote"
)

// adHocFlags are the host and connection flags exec, put and get share,
// written straight into a.
func adHocFlags(a *orchestrator.AdHoc) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "plan", Usage: "plan file whose hosts to use", Destination: &a.Plan},
		&cli.StringSliceFlag{Name: "hosts", Usage: "`nodes`, workload, all (the default), or host names (comma-separated or repeated)"},
		&cli.StringSliceFlag{Name: "target", Usage: "ad-hoc host `name=user@host:port` (repeatable; instead of --plan)"},
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` (default: the plan's, else ~/.ssh/known_hosts)", Destination: &a.KnownHosts},
		&cli.BoolFlag{Name: "accept-new-host-keys", Usage: "add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused", Destination: &a.AcceptNew},
		&cli.BoolFlag{Name: "create-known-hosts", Usage: "with --accept-new-host-keys, create the known_hosts file if it does not exist (only ~/.ssh/known_hosts is created without it)", Destination: &a.CreateKnownHosts},
		&cli.BoolFlag{Name: "insecure-ignore-host-keys", Usage: "DANGEROUS: do not check host keys at all (throwaway machines only)", Destination: &a.Insecure},
		&cli.StringSliceFlag{Name: "identity", Aliases: []string{"i"}, Usage: "private key `FILE` to offer (repeatable; after ssh-agent's keys)"},
		&cli.StringFlag{Name: "ssh-config", Usage: "ssh_config `FILE` to read (default ~/.ssh/config; \"none\" for none)", Destination: &a.SSHConfig},
		&cli.IntFlag{Name: "concurrency", Usage: "hosts at once (default: the plan's, else 32)", Destination: &a.Concurrency},
	}
}

// adHoc completes a from the context: the slice flags and the writers.
func adHoc(c *cli.Context, a *orchestrator.AdHoc) orchestrator.AdHoc {
	a.Hosts, a.Targets, a.Identities = c.StringSlice("hosts"), c.StringSlice("target"), c.StringSlice("identity")
	a.Out, a.ErrOut = c.App.Writer, c.App.ErrWriter
	if isTerminal(c.App.ErrWriter) {
		a.Progress = c.App.ErrWriter
	}
	return *a
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// execCommand: benchrig exec --plan PLAN --hosts ... -- CMD ARGS...
func execCommand() *cli.Command {
	var a orchestrator.AdHoc
	var cmd remote.Cmd
	var stdin bool
	return &cli.Command{
		Name:      "exec",
		Usage:     "run a command on plan hosts, output prefixed with the host name",
		ArgsUsage: "-- CMD [ARGS...]",
		Description: "The command is an argument vector, quoted for the remote shell word by word: " +
			"`benchrig exec --hosts nodes -- ls -l '/var/log/my dir'` runs exactly that. " +
			"For shell syntax, run a shell: -- sh -c 'ulimit -n; df -h /'.",
		Flags: append(adHocFlags(&a),
			&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `D` (SIGTERM, then SIGKILL)", Destination: &cmd.Timeout},
			&cli.BoolFlag{Name: "stdin", Usage: "read standard input once and send it to the command on every host (like pssh -I): -- sh -s < script.sh", Destination: &stdin},
		),
		Action: func(c *cli.Context) error {
			cmd.Args = c.Args().Slice()
			if stdin && len(cmd.Args) > 0 {
				b, err := io.ReadAll(c.App.Reader)
				if err != nil {
					return fmt.Errorf("exec: read stdin: %w", err)
				}
				cmd.Stdin = string(b)
			}
			return orchestrator.Exec(c.Context, adHoc(c, &a), cmd)
		},
	}
}

// putCommand: benchrig put [--mode 0755] LOCAL REMOTE
func putCommand() *cli.Command {
	var a orchestrator.AdHoc
	var t remote.Transfer
	var mode string
	return &cli.Command{
		Name:      "put",
		Usage:     "upload a file to plan hosts (sha256-checked, atomic, skipped when unchanged)",
		ArgsUsage: "LOCAL REMOTE",
		Flags: append(adHocFlags(&a),
			&cli.StringFlag{Name: "mode", Usage: "octal mode of the remote file (default: the local file's)", Destination: &mode},
			&cli.StringFlag{Name: "sha256", Usage: "expected sha256 of the file", Destination: &t.SHA256},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return withExit(exitUsage, errors.New("put: give LOCAL and REMOTE"))
			}
			t.Local, t.Remote = c.Args().Get(0), c.Args().Get(1)
			var err error
			if t.Mode, err = orchestrator.ParseMode(mode); err != nil {
				return err
			}
			return orchestrator.Put(c.Context, adHoc(c, &a), t)
		},
	}
}

// getCommand: benchrig get REMOTE LOCALDIR → LOCALDIR/<host>/<name>
func getCommand() *cli.Command {
	var a orchestrator.AdHoc
	return &cli.Command{
		Name:      "get",
		Usage:     "download a file from plan hosts into LOCALDIR/<host>/",
		ArgsUsage: "REMOTE LOCALDIR",
		Flags:     adHocFlags(&a),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return withExit(exitUsage, errors.New("get: give REMOTE and LOCALDIR"))
			}
			return orchestrator.Get(c.Context, adHoc(c, &a), c.Args().Get(0), c.Args().Get(1))
		},
	}
}
