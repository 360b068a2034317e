package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
)

func exportCommand() *cli.Command {
	var format, out string
	return &cli.Command{
		Name:      "export",
		Usage:     "write a run's final result for other tools (OpenMetrics text, for Prometheus)",
		ArgsUsage: "RUN_DIR",
		Description: `Reads RUN_DIR/report.json. To push to a Prometheus Pushgateway:
   benchrig export RUN_DIR | curl --data-binary @- \
     -H 'Content-Type: application/openmetrics-text; version=1.0.0' \
     http://pushgateway:9091/metrics/job/benchrig`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "openmetrics", Usage: "output `FORMAT`: openmetrics", Destination: &format},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of standard output", Destination: &out},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("export: name one run directory"))
			}
			return orchestrator.Export(c.App.Writer, c.Args().First(), format, out)
		},
	}
}
