package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// version is set with -ldflags "-X main.version=...".
var version = "dev"

// newApp builds the command tree. Each subcommand lives in its own file as
// a constructor; flags bind into per-command values, never package state.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "benchrig",
		Usage:                "reproduce cluster database benchmarks end to end over SSH",
		Version:              version,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		HideHelpCommand:      true,
		ExitErrHandler:       func(*cli.Context, error) {}, // run maps errors to exit codes itself
		Description:          exitCodeHelp,
		Commands: []*cli.Command{
			planCommand(),
			runCommand(),
			resumeCommand(),
			statusCommand(),
			reportCommand(),
			execCommand(),
			putCommand(),
			getCommand(),
			tpccCommand(),
			crudCommand(),
			compareCommand(),
			checkResultCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return withExit(exitUsage, fmt.Errorf("unknown command %q (see benchrig --help)", c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
	}
	// A flag that does not parse is a usage error (exit 2), whichever
	// command it was given to.
	usage := func(_ *cli.Context, err error, _ bool) error { return withExit(exitUsage, err) }
	app.OnUsageError = usage
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.OnUsageError == nil {
				c.OnUsageError = usage
			}
			if c.Action == nil && len(c.Subcommands) > 0 {
				name := c.Name
				c.Action = func(ctx *cli.Context) error {
					if ctx.NArg() > 0 {
						return withExit(exitUsage, fmt.Errorf("unknown command %q of %s (see benchrig %s --help)", ctx.Args().First(), name, name))
					}
					return cli.ShowSubcommandHelp(ctx)
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	return app
}

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "benchrig: %v\n", err)
	return exitCode(ctx, err)
}

// tpccCommand groups the embedded TPC-C driver; its subcommands are defined
// next to the code they drive (tpcc_data.go, tpcc_run.go).
func tpccCommand() *cli.Command {
	return &cli.Command{
		Name:        "tpcc",
		Usage:       "the embedded TPC-C driver (runs on workload hosts)",
		Subcommands: append(tpccDataCommands(), tpccRunCommands()...),
	}
}
