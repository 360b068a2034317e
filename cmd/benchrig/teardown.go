package main

import (
	"errors"
	"io"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/benchrig/benchrig/orchestrator"
)

func teardownCommand() *cli.Command {
	var o orchestrator.Options
	var wipe, yes bool
	return &cli.Command{
		Name:      "teardown",
		Usage:     "stop the database and benchrig's jobs on every host; --wipe also removes stores and work directories",
		ArgsUsage: "RUN_DIR|PLAN",
		Description: `Runs the teardown stage, which a run never runs by default (also: benchrig
run PLAN --only teardown, which stops but does not wipe). On every host it
stops benchrig's detached jobs (drivers, loads, host samplers; SIGTERM,
then SIGKILL after 60s), then the database nodes. With --wipe it then
removes every node's store and every host's work directory that benchrig
created (each holds a .benchrig-owned marker; a directory without one, the
login's home or a directory holding it is named and left): it lists them
and asks for "yes" on a terminal; without a terminal it refuses unless
--yes. RUN_DIR uses the run's copy of its plan (and logs to its
logs/teardown/); --dry-run prints every command and contacts nothing.`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "wipe", Usage: "also remove the stores and work directories", Destination: &wipe},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask before --wipe", Destination: &yes},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.DryRun},
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("teardown: name one run directory or plan file"))
			}
			t, err := orchestrator.LoadTeardownTarget(c.Args().First())
			if err != nil {
				return err
			}
			if wipe && !yes && !o.DryRun {
				if err := orchestrator.ConfirmWipe(c.App.Reader, c.App.ErrWriter, isTerminalReader(c.App.Reader), t); err != nil {
					return err
				}
			}
			return orchestrator.Teardown(c.Context, t, wipe, runOptions(c, &o, ""))
		},
	}
}

// isTerminalReader says whether r is a terminal (standard input); a
// character device such as /dev/null is not one.
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
