package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator/hostmetrics"
)

func hoststatCommand() *cli.Command {
	var interval, duration time.Duration
	var out, host string
	return &cli.Command{
		Name:  "hoststat",
		Usage: "sample this host's CPU, memory, disks and network from /proc as JSON lines (runs on every host)",
		Description: `Writes one line per interval (schema benchrig.hoststat/v1) until interrupted
(SIGINT, SIGTERM: exit 0) or --duration has passed. --out appends, so a
resumed run stage continues the same file; each line is flushed as written.`,
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "time between samples", Destination: &interval},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until a signal)", Destination: &duration},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "append to `FILE` instead of writing to standard output", Destination: &out},
			&cli.StringFlag{Name: "host", Usage: "host `NAME` recorded in each sample (default: the hostname)", Destination: &host},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return withExit(exitUsage, errors.New("hoststat: takes no arguments"))
			}
			if interval < 10*time.Millisecond || interval > time.Hour {
				return withExit(exitUsage, fmt.Errorf("hoststat: --interval %s: from 10ms to 1h", interval))
			}
			if duration < 0 {
				return withExit(exitUsage, errors.New("hoststat: --duration must not be negative"))
			}
			if host == "" {
				host, _ = os.Hostname()
			}
			ctx := c.Context
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			w := c.App.Writer
			if out != "" {
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			err := (&hostmetrics.Sampler{Host: host}).Run(ctx, interval, w)
			if err == nil && c.Context.Err() != nil {
				// Stopped by a signal: the samples are complete.
				return nil
			}
			return err
		},
	}
}
