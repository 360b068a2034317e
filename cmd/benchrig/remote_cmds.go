package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/remote"
)

// adHocFlags declares the host and connection flags exec, put and get
// share (orchestrator.AdHoc's tags) and more; what it returns completes a
// once they are parsed.
func adHocFlags(a *orchestrator.AdHoc, more ...cli.Flag) ([]cli.Flag, func(*cli.Context) orchestrator.AdHoc) {
	flags, apply := cliargs.Flags(a)
	return append(flags, more...), func(c *cli.Context) orchestrator.AdHoc {
		apply(c)
		a.Out, a.ErrOut = c.App.Writer, c.App.ErrWriter
		if isTerminal(c.App.ErrWriter) {
			a.Progress = c.App.ErrWriter
		}
		return *a
	}
}

func execCommand() *cli.Command {
	var a orchestrator.AdHoc
	var cmd remote.Cmd
	var stdin bool
	flags, adHoc := adHocFlags(&a,
		&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `D` (SIGTERM, then SIGKILL)", Destination: &cmd.Timeout},
		&cli.BoolFlag{Name: "stdin", Usage: "read standard input once and send it to the command on every host (like pssh -I): -- sh -s < script.sh", Destination: &stdin},
	)
	return &cli.Command{Name: "exec", Usage: "run a command on plan hosts, output prefixed with the host name",
		ArgsUsage: "-- CMD [ARGS...]", Description: help("exec"), Flags: flags,
		Action: func(c *cli.Context) error {
			a := adHoc(c)
			if cmd.Args = c.Args().Slice(); stdin {
				a.Stdin = c.App.Reader
			}
			return orchestrator.Exec(c.Context, a, cmd)
		},
	}
}

func putCommand() *cli.Command {
	var a orchestrator.AdHoc
	var t remote.Transfer
	var mode string
	flags, adHoc := adHocFlags(&a,
		&cli.StringFlag{Name: "mode", Usage: "octal mode of the remote file (default: the local file's)", Destination: &mode},
		&cli.StringFlag{Name: "sha256", Usage: "expected sha256 of the file", Destination: &t.SHA256},
	)
	return &cli.Command{Name: "put", Usage: "upload a file to plan hosts (sha256-checked, atomic, skipped when unchanged)",
		ArgsUsage: "LOCAL REMOTE", Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 2, "give LOCAL and REMOTE"); err != nil {
				return err
			}
			t.Local, t.Remote = c.Args().Get(0), c.Args().Get(1)
			return orchestrator.Put(c.Context, adHoc(c), t, mode)
		},
	}
}

func getCommand() *cli.Command {
	var a orchestrator.AdHoc
	flags, adHoc := adHocFlags(&a)
	return &cli.Command{Name: "get", Usage: "download a file from plan hosts into LOCALDIR/<host>/", ArgsUsage: "REMOTE LOCALDIR", Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 2, "give REMOTE and LOCALDIR"); err != nil {
				return err
			}
			return orchestrator.Get(c.Context, adHoc(c), c.Args().Get(0), c.Args().Get(1))
		},
	}
}
