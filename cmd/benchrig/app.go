package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
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
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Usage: "say more: every step's command line and output as it runs", EnvVars: []string{"BENCHRIG_VERBOSE"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say less: results and errors only", EnvVars: []string{"BENCHRIG_QUIET"}},
		},
		Before: func(c *cli.Context) error {
			if c.Bool("verbose") && c.Bool("quiet") {
				return withExit(exitUsage, errors.New("--verbose and --quiet exclude each other"))
			}
			return nil
		},
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
			exportCommand(),
			hoststatCommand(),
			teardownCommand(),
			completionCommand(),
			manCommand(),
			versionCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return withExit(exitUsage, fmt.Errorf("unknown command %q (see benchrig --help)", c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
	}
	// A flag that does not parse, or an unknown subcommand, is a usage
	// error (exit 2), whichever command it was given to.
	cliargs.UsageErrors(app, func(err error) error { return withExit(exitUsage, err) })
	cliargs.BindEnv(app.Commands, "BENCHRIG_", envFlags, "tpcc", "crud")
	return app
}

// envFlags are the flags a BENCHRIG_* environment variable can set (the
// flag's name in upper case, dashes as underscores): where hosts are and
// how to reach them, which a user sets once per shell or CI job. Flags
// that weaken security (--insecure-ignore-host-keys) are not among them:
// they must be typed each time. The embedded drivers (tpcc, crud) take no
// environment: they run on workload hosts with the arguments the plan
// gives them.
var envFlags = []string{"known-hosts", "accept-new-host-keys", "identity", "ssh-config", "plan", "runs-dir", "driver-binary"}

// quiet and verbose read the global --quiet and --verbose.
func quiet(c *cli.Context) bool   { return c.Bool("quiet") && !c.Command.HasName("crud") }
func verbose(c *cli.Context) bool { return c.Bool("verbose") }

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, cliargs.Reorder(app, args))
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
