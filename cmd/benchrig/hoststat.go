package main

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
)

func hoststatCommand() *cli.Command {
	var a orchestrator.HostStatArgs
	return &cli.Command{
		Name:  "hoststat",
		Usage: "sample this host's CPU, memory, disks and network from /proc as JSON lines (runs on every host)",
		Description: `Writes one line per interval (schema benchrig.hoststat/v1) until interrupted
(SIGINT, SIGTERM: exit 0) or --duration has passed. --out appends, so a
resumed run stage continues the same file; each line is flushed as written.`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "time between samples", Destination: &a.Interval},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until a signal)", Destination: &a.Duration},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "append to `FILE` instead of writing to standard output", Destination: &a.Out},
			&cli.StringFlag{Name: "host", Usage: "host `NAME` recorded in each sample (default: the hostname)", Destination: &a.Host},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return withExit(exitUsage, errors.New("hoststat: takes no arguments"))
			}
			return orchestrator.HostStat(c.Context, c.App.Writer, a)
		},
	}
}
