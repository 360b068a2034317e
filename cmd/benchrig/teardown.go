package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/benchrig/benchrig/orchestrator"
)

func teardownCommand() *cli.Command {
	var o runOptions
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
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.dryRun},
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("teardown: name one run directory or plan file"))
			}
			t, err := orchestrator.LoadTeardownTarget(c.Args().First())
			if err != nil {
				return err
			}
			if wipe && !yes && !o.dryRun {
				if err := confirmWipe(c.App.Reader, c.App.ErrWriter, isTerminalReader(c.App.Reader), t); err != nil {
					return err
				}
			}
			return orchestrator.Teardown(c.Context, t, wipe, o.orchestrator(c))
		},
	}
}

// confirmWipe lists what --wipe removes and wants "yes" typed on a
// terminal; without one it refuses (a script must say --yes).
func confirmWipe(in io.Reader, out io.Writer, terminal bool, t *orchestrator.TeardownTarget) error {
	if !terminal {
		return withExit(exitUsage, errors.New("teardown --wipe: no terminal to ask on; add --yes to remove the stores and work directories"))
	}
	fmt.Fprintf(out, "teardown --wipe of plan %s removes, after stopping everything, those of these directories benchrig created (holding .benchrig-owned):\n", t.Plan.Name)
	for _, h := range t.Plan.Nodes {
		fmt.Fprintf(out, "  %-12s store %s, work directory %s\n", h.Name, h.Store, h.Dir)
	}
	for _, h := range t.Plan.Workload {
		fmt.Fprintf(out, "  %-12s work directory %s\n", h.Name, h.Dir)
	}
	fmt.Fprint(out, "Type yes to go on: ")
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return withExit(exitUsage, errors.New("teardown --wipe: not confirmed"))
	}
	if strings.TrimSpace(line) != "yes" {
		return withExit(exitUsage, errors.New("teardown --wipe: not confirmed; nothing was done"))
	}
	return nil
}

// isTerminalReader says whether r is a terminal (standard input); a
// character device such as /dev/null is not one.
func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
