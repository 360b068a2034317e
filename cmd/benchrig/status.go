package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/gate"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

// The commands that read a run directory (or a plan) and contact no host.

func statusCommand() *cli.Command {
	a := orchestrator.StatusArgs{Every: time.Second}
	return tagged(&cli.Command{Name: "status", ArgsUsage: "RUN_DIR", Description: help("status"),
		Usage: "print a run's stage × host progress; --watch follows it live"}, &a,
		func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			a.Dir, a.Terminal = c.Args().First(), isTerminal(c.App.Writer)
			return orchestrator.ShowStatus(c.Context, c.App.Writer, a)
		})
}

func compareCommand() *cli.Command {
	a := orchestrator.CompareArgs{Format: "text"}
	return tagged(&cli.Command{Name: "compare", ArgsUsage: "RUN_DIR RUN_DIR [RUN_DIR...]", Description: help("compare"),
		Usage: "set the results of runs side by side, with significance over repeats (benchstat's U test)"}, &a,
		func(c *cli.Context) error {
			a.Dirs = c.Args().Slice()
			return orchestrator.Compare(c.App.Writer, a)
		})
}

func exportCommand() *cli.Command {
	a := orchestrator.ExportArgs{Format: "openmetrics"}
	return tagged(&cli.Command{Name: "export", ArgsUsage: "RUN_DIR", Description: help("export"),
		Usage: "write a run's final result for other tools (OpenMetrics text, for Prometheus)"}, &a,
		func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			a.Dir = c.Args().First()
			return orchestrator.Export(c.App.Writer, a)
		})
}

func checkResultCommand() *cli.Command {
	var a orchestrator.CheckResultArgs
	latency := map[string]*cli.StringSlice{}
	var flags []cli.Flag
	for _, p := range gate.Percentiles {
		latency[p] = cli.NewStringSlice()
		flags = append(flags, &cli.StringSliceFlag{Name: "max-" + p, Usage: "fail when a transaction's " + p + " latency exceeds a limit: `TXN=DURATION` (newOrder=50ms; * for all), repeatable", Destination: latency[p]})
	}
	return tagged(&cli.Command{Name: "check-result", ArgsUsage: "RUN_DIR", Description: help("check-result"), Flags: flags,
		Usage: "exit 30 with a one-line reason when a run misses a threshold (for CI)"}, &a,
		func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			a.Dir, a.Latency = c.Args().First(), map[string][]string{}
			for _, f := range c.Command.Flags {
				a.FlagsSet = a.FlagsSet || (f.Names()[0] != "against" && c.IsSet(f.Names()[0]))
			}
			for p, v := range latency {
				a.Latency[p] = v.Value()
			}
			a.Verbose, a.Quiet, a.Out, a.ErrOut = c.Bool("verbose"), c.Bool("quiet"), c.App.Writer, c.App.ErrWriter
			return orchestrator.CheckResult(a)
		})
}

func planCommand() *cli.Command {
	var opts plan.Options
	var asJSON bool
	return &cli.Command{Name: "plan", Usage: "validate plans and show their topology", Subcommands: []*cli.Command{tagged(&cli.Command{
		Name: "validate", Usage: "check plan files; every problem is reported as file:line:col", ArgsUsage: "PLAN..."}, &opts,
		func(c *cli.Context) error {
			if err := nargs(c, -1, "name at least one plan file"); err != nil {
				return err
			}
			return orchestrator.ValidatePlans(c.App.Writer, c.App.ErrWriter, c.Args().Slice(), opts)
		}), {
		Name: "show", Usage: "print the expanded topology: hosts, racks, partitions, addresses", ArgsUsage: "PLAN", Description: help("plan-show"),
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "machine-readable output (benchrig.plan/v1)", Destination: &asJSON}},
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one plan file"); err != nil {
				return err
			}
			return orchestrator.ShowPlan(c.App.Writer, c.Args().First(), asJSON)
		},
	}}}
}
