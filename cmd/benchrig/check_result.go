package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/compare"
	"github.com/benchrig/benchrig/orchestrator/gate"
)

func checkResultCommand() *cli.Command {
	var minTpmC, minEff float64
	var maxErrors int64
	var regression, against string
	latency := map[string]*cli.StringSlice{}
	flags := []cli.Flag{
		&cli.Float64Flag{Name: "min-tpmc", Usage: "fail below `N` tpmC", Destination: &minTpmC},
		&cli.Float64Flag{Name: "min-efficiency", Usage: "fail below `PERCENT` efficiency", Destination: &minEff},
	}
	for _, p := range gate.Percentiles {
		latency[p] = cli.NewStringSlice()
		flags = append(flags, &cli.StringSliceFlag{Name: "max-" + p, Usage: "fail when a transaction's " + p + " latency exceeds a limit: `TXN=DURATION` (newOrder=50ms; * for all), repeatable", Destination: latency[p]})
	}
	flags = append(flags,
		&cli.Int64Flag{Name: "max-errors", Usage: "fail above `N` transaction errors", Destination: &maxErrors},
		&cli.StringFlag{Name: "max-regression", Usage: "fail when tpmC is more than `PERCENT` below the --against run's (and, with repeats, significantly)", Destination: &regression},
		&cli.StringFlag{Name: "against", Usage: "the baseline `RUN_DIR` for --max-regression", Destination: &against},
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
			t := gate.Thresholds{MinTpmC: minTpmC, MinEfficiency: minEff}
			for _, p := range gate.Percentiles {
				for _, v := range latency[p].Value() {
					l, err := gate.ParseLatencyLimit(p, v)
					if err != nil {
						return withExit(exitUsage, fmt.Errorf("check-result: --max-%s: %w", p, err))
					}
					t.Latency = append(t.Latency, l)
				}
			}
			if c.IsSet("max-errors") {
				if maxErrors < 0 {
					return withExit(exitUsage, errors.New("check-result: --max-errors must not be negative"))
				}
				t.MaxErrors = &maxErrors
			}
			if regression != "" {
				v, err := gate.ParsePercent(regression)
				if err != nil {
					return withExit(exitUsage, fmt.Errorf("check-result: --max-regression: %w", err))
				}
				t.MaxRegressionPercent = v
				if against == "" {
					return withExit(exitUsage, errors.New("check-result: --max-regression needs --against RUN_DIR"))
				}
			}
			run, err := compare.Load(c.Args().First())
			if err != nil {
				return err
			}
			if !thresholdFlagSet(c) {
				// No flags: the thresholds of the plan the run ran.
				pt, err := orchestrator.PlanThresholds(run.Dir)
				if err != nil {
					return err
				}
				if pt == nil {
					return withExit(exitUsage, errors.New("check-result: no thresholds: give flags (--min-tpmc, --max-p95, ...) or add a thresholds: section to the plan"))
				}
				t = *pt
			}
			var base *compare.Run
			if against != "" {
				if base, err = compare.Load(against); err != nil {
					return err
				}
			}
			passed, err := gate.Evaluate(run, t, base)
			if verbose(c) {
				for _, p := range passed {
					fmt.Fprintf(c.App.ErrWriter, "check-result: ok: %s\n", p)
				}
			}
			if err != nil {
				return err
			}
			if !quiet(c) {
				fmt.Fprintf(c.App.Writer, "check-result: %s meets every threshold\n", run.Name)
			}
			return nil
		},
	}
}

// thresholdFlagSet says whether any threshold flag was given.
func thresholdFlagSet(c *cli.Context) bool {
	for _, name := range []string{"min-tpmc", "min-efficiency", "max-errors", "max-regression"} {
		if c.IsSet(name) {
			return true
		}
	}
	for _, p := range gate.Percentiles {
		if c.IsSet("max-" + p) {
			return true
		}
	}
	return false
}
