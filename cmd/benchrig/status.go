package main

import (
	"errors"
	"os"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/benchrig/benchrig/orchestrator"
)

func statusCommand() *cli.Command {
	var hosts, watch, asJSON bool
	var every time.Duration
	return &cli.Command{
		Name:      "status",
		Usage:     "print a run's stage × host progress; --watch follows it live",
		ArgsUsage: "RUN_DIR",
		Description: `Prints the run's stages from its state file. --watch follows a run that is
going on: the current stage, each host's step and, in the run stage, the
merged tpmC of the workload hosts' latest ticks (live.json, which the run
rewrites every 5s). On a terminal the view refreshes in place; otherwise
a plain line is printed whenever the progress changes. It ends when no
benchrig process drives the run any more.

--json prints the status as one JSON document (schema benchrig.status/v1,
docs/schema/status.v1.json); with --watch, one document per line on each
change.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "hosts", Usage: "one line per host, not per stage", Destination: &hosts},
			&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "follow the run until it ends", Destination: &watch},
			&cli.BoolFlag{Name: "json", Usage: "machine-readable output (benchrig.status/v1)", Destination: &asJSON},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "refresh period of --watch", Destination: &every},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("status: name one run directory"))
			}
			if every < 100*time.Millisecond || every > time.Hour {
				return withExit(exitUsage, errors.New("status: --interval: from 100ms to 1h"))
			}
			dir := c.Args().First()
			if watch {
				return orchestrator.Watch(c.Context, c.App.Writer, dir, orchestrator.WatchOptions{
					Every: every, JSON: asJSON, InPlace: !asJSON && isTerminalWriter(c.App.Writer)})
			}
			if asJSON {
				return orchestrator.StatusJSON(c.App.Writer, dir)
			}
			return orchestrator.Status(c.App.Writer, dir, hosts)
		},
	}
}

// isTerminalWriter says whether w is a terminal (a character device such
// as /dev/null is not).
func isTerminalWriter(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
