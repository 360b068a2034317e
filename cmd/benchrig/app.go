package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/benchrig/benchrig/internal/cliargs"
	"github.com/benchrig/benchrig/internal/termsafe"
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
			&cli.BoolFlag{Name: "verbose", Usage: "say more: every host's output as it runs (run, resume and teardown show it on the console; it is always in the run directory's logs)", EnvVars: []string{"BENCHRIG_VERBOSE"}},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "say less: results and errors only", EnvVars: []string{"BENCHRIG_QUIET"}},
		},
		Before: func(c *cli.Context) error {
			if c.Bool("verbose") && c.Bool("quiet") {
				return usage(errors.New("--verbose and --quiet exclude each other"))
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
			serveFileCommand(),
			teardownCommand(),
			completionCommand(),
			manCommand(),
			versionCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage(fmt.Errorf("unknown command %q (see benchrig --help)", c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
	}
	// A flag that does not parse, or an unknown subcommand, is a usage
	// error (exit 2), whichever command it was given to.
	cliargs.UsageErrors(app, usage)
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

// run executes the CLI and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, cliargs.Reorder(app, args))
	if err == nil {
		return exitOK
	}
	// An error may quote a host's output: shown, not acted on.
	fmt.Fprintf(stderr, "benchrig: %s\n", termsafe.String(err.Error()))
	return exitCode(ctx, err)
}

// The commands' long help, one text file per command under help/: prose
// that the man page, --help and README share, kept out of the code.
//
//go:embed help/*.txt
var helpFiles embed.FS

// help is the long help of the command whose file is help/<name>.txt. A
// missing file is a mistake in this binary, shown by every test that
// builds the command tree.
func help(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err)
	}
	return strings.TrimRight(string(b), "\n")
}

// tagged completes cmd with the flags the tags of args's type declare
// (cliargs.Flags), ahead of cmd's own, and an Action that writes them
// into args before it calls action.
func tagged(cmd *cli.Command, args any, action cli.ActionFunc) *cli.Command {
	flags, apply := cliargs.Flags(args)
	cmd.Flags = append(flags, cmd.Flags...)
	cmd.Action = func(c *cli.Context) error {
		apply(c)
		return action(c)
	}
	return cmd
}

// nargs is the usage error (exit 2) of a command given other than n
// arguments (n < 0: at least -n); what says what the arguments are.
func nargs(c *cli.Context, n int, what string) error {
	if c.NArg() == n || (n < 0 && c.NArg() >= -n) {
		return nil
	}
	return usage(fmt.Errorf("%s: %s", c.Command.FullName(), what))
}

// isTerminal says whether a command's reader or writer is a terminal (a
// character device such as /dev/null is not one): progress is then
// redrawn in place and --wipe asks before it removes anything.
func isTerminal(rw any) bool {
	f, ok := rw.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
