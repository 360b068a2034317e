package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/gate"
)

func checkResultCommand() *cli.Command {
	var a orchestrator.CheckResultArgs
	latency := map[string]*cli.StringSlice{}
	flags := []cli.Flag{
		&cli.Float64Flag{Name: "min-tpmc", Usage: "fail below `N` tpmC", Destination: &a.MinTpmC},
		&cli.Float64Flag{Name: "min-efficiency", Usage: "fail below `PERCENT` efficiency", Destination: &a.MinEff},
	}
	for _, p := range gate.Percentiles {
		latency[p] = cli.NewStringSlice()
		flags = append(flags, &cli.StringSliceFlag{Name: "max-" + p, Usage: "fail when a transaction's " + p + " latency exceeds a limit: `TXN=DURATION` (newOrder=50ms; * for all), repeatable", Destination: latency[p]})
	}
	flags = append(flags,
		&cli.Int64Flag{Name: "max-errors", Usage: "fail above `N` transaction errors", Destination: &a.MaxErrors},
		&cli.StringFlag{Name: "max-regression", Usage: "fail when tpmC is more than `PERCENT` below the --against run's (and, with repeats, significantly)", Destination: &a.Regression},
		&cli.StringFlag{Name: "against", Usage: "the baseline `RUN_DIR` for --max-regression", Destination: &a.Against},
	)
	return &cli.Command{
		Name:      "check-result",
		Usage:     "exit 30 with a one-line reason when a run misses a threshold (for CI)",
		ArgsUsage: "RUN_DIR",
		Description: `Reads RUN_DIR/report.json; with repeats, each figure is the median of the
repeats. Without threshold flags it checks the thresholds: section of the
plan the run ran (RUN_DIR/plan.yaml); flags replace the plan's thresholds. Exits 0 when every threshold is met, 30 when one is missed (all
missed thresholds on one line), 2 on bad flags.`,
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("check-result: name one run directory"))
			}
			a.Dir, a.MaxErrorsSet, a.Latency = c.Args().First(), c.IsSet("max-errors"), map[string][]string{}
			for _, f := range c.Command.Flags {
				a.FlagsSet = a.FlagsSet || (f.Names()[0] != "against" && c.IsSet(f.Names()[0]))
			}
			for p, v := range latency {
				a.Latency[p] = v.Value()
			}
			a.Verbose, a.Quiet, a.Out, a.ErrOut = verbose(c), quiet(c), c.App.Writer, c.App.ErrWriter
			return orchestrator.CheckResult(a)
		},
	}
}
