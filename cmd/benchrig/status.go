package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/gate"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

// The commands that read a run directory (or a plan) and contact no host.

func statusCommand() *cli.Command {
	a := orchestrator.StatusArgs{Every: time.Second}
	flags, apply := cliargs.Flags(&a)
	return &cli.Command{Name: "status", Usage: "print a run's stage × host progress; --watch follows it live",
		ArgsUsage: "RUN_DIR", Description: help("status"), Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			apply(c)
			a.Dir, a.Terminal = c.Args().First(), isTerminal(c.App.Writer)
			return orchestrator.ShowStatus(c.Context, c.App.Writer, a)
		},
	}
}

func compareCommand() *cli.Command {
	a := orchestrator.CompareArgs{Format: "text"}
	flags, apply := cliargs.Flags(&a)
	return &cli.Command{Name: "compare", Usage: "set the results of runs side by side, with significance over repeats (benchstat's U test)",
		ArgsUsage: "RUN_DIR RUN_DIR [RUN_DIR...]", Description: help("compare"), Flags: flags,
		Action: func(c *cli.Context) error {
			apply(c)
			a.Dirs = c.Args().Slice()
			return orchestrator.Compare(c.App.Writer, a)
		},
	}
}

func exportCommand() *cli.Command {
	a := orchestrator.ExportArgs{Format: "openmetrics"}
	flags, apply := cliargs.Flags(&a)
	return &cli.Command{Name: "export", Usage: "write a run's final result for other tools (OpenMetrics text, for Prometheus)",
		ArgsUsage: "RUN_DIR", Description: help("export"), Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			apply(c)
			a.Dir = c.Args().First()
			return orchestrator.Export(c.App.Writer, a)
		},
	}
}

func checkResultCommand() *cli.Command {
	var a orchestrator.CheckResultArgs
	flags, apply := cliargs.Flags(&a)
	latency := map[string]*cli.StringSlice{}
	for _, p := range gate.Percentiles {
		latency[p] = cli.NewStringSlice()
		flags = append(flags, &cli.StringSliceFlag{Name: "max-" + p, Usage: "fail when a transaction's " + p + " latency exceeds a limit: `TXN=DURATION` (newOrder=50ms; * for all), repeatable", Destination: latency[p]})
	}
	return &cli.Command{Name: "check-result", Usage: "exit 30 with a one-line reason when a run misses a threshold (for CI)",
		ArgsUsage: "RUN_DIR", Description: help("check-result"), Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			apply(c)
			a.Dir, a.Latency = c.Args().First(), map[string][]string{}
			for _, f := range c.Command.Flags {
				a.FlagsSet = a.FlagsSet || (f.Names()[0] != "against" && c.IsSet(f.Names()[0]))
			}
			for p, v := range latency {
				a.Latency[p] = v.Value()
			}
			a.Verbose, a.Quiet, a.Out, a.ErrOut = c.Bool("verbose"), c.Bool("quiet"), c.App.Writer, c.App.ErrWriter
			return orchestrator.CheckResult(a)
		},
	}
}

func planCommand() *cli.Command {
	var opts plan.Options
	flags, apply := cliargs.Flags(&opts)
	var asJSON bool
	return &cli.Command{Name: "plan", Usage: "validate plans and show their topology", Subcommands: []*cli.Command{{
		Name: "validate", Usage: "check plan files; every problem is reported as file:line:col", ArgsUsage: "PLAN...", Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, -1, "name at least one plan file"); err != nil {
				return err
			}
			apply(c)
			return orchestrator.ValidatePlans(c.App.Writer, c.App.ErrWriter, c.Args().Slice(), opts)
		},
	}, {
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
