package main

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator/compare"
)

func compareCommand() *cli.Command {
	var format, svg string
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
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output `FORMAT`: text, markdown or json", Destination: &format},
			&cli.BoolFlag{Name: "json", Usage: "same as --format json", Destination: &asJSON},
			&cli.StringFlag{Name: "svg", Usage: "also draw the latency distributions side by side into `FILE`", Destination: &svg},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return withExit(exitUsage, errors.New("compare: name two or more run directories"))
			}
			if asJSON {
				format = "json"
			}
			if !slices.Contains(compare.Formats, format) {
				return withExit(exitUsage, fmt.Errorf("compare: --format %q: use text, markdown or json", format))
			}
			var runs []*compare.Run
			for _, dir := range c.Args().Slice() {
				r, err := compare.Load(dir)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			cmp, err := compare.Compare(runs...)
			if err != nil {
				return err
			}
			if svg != "" {
				f, err := os.Create(svg)
				if err != nil {
					return err
				}
				err = compare.PlotCDF(f, cmp, runs)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return fmt.Errorf("compare: %s: %w", svg, err)
				}
			}
			return compare.Write(c.App.Writer, cmp, format)
		},
	}
}
