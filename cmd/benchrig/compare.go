package main

import (
	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
)

func compareCommand() *cli.Command {
	var a orchestrator.CompareArgs
	var asJSON bool
	return &cli.Command{
		Name:      "compare",
		Usage:     "set the results of runs side by side, with significance over repeats (benchstat's U test)",
		ArgsUsage: "RUN_DIR RUN_DIR [RUN_DIR...]",
		Description: `Reads each run's report.json. The first run is the baseline: every other
run gets its change against it and, when both have repeats, a two-sided
Mann-Whitney U test at alpha 0.05 ("~": not significant). Four or more
repeats per run are needed for any difference to be significant.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, markdown or json", Destination: &a.Format},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json", Destination: &asJSON},
			&cli.StringFlag{Name: "svg", Usage: "also draw the latency distributions side by side into `FILE`", Destination: &a.SVG},
		},
		Action: func(c *cli.Context) error {
			if a.Dirs = c.Args().Slice(); asJSON {
				a.Format = "json"
			}
			return orchestrator.Compare(c.App.Writer, a)
		},
	}
}
