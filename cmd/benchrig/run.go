package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

// orchestratorFlags declares, after extra, the flags every command that
// runs stages shares: the SSH connection's (orchestrator.Connect's tags)
// and --allow-setting (plan.Options'). It returns what completes o once
// they are parsed: --only, --allow-setting, the writers, the version and
// the progress terminal.
func orchestratorFlags(o *orchestrator.Options, extra ...cli.Flag) ([]cli.Flag, func(*cli.Context, string) orchestrator.Options) {
	var po plan.Options // --allow-setting
	flags, apply := cliargs.Flags(o)
	pflags, papply := cliargs.Flags(&po)
	return append(append(extra, flags...), pflags...), func(c *cli.Context, only string) orchestrator.Options {
		apply(c)
		papply(c)
		o.AllowSettings = po.AllowSettings
		o.Out, o.ErrOut, o.Version = c.App.Writer, c.App.ErrWriter, version
		if only != "" {
			o.Only = strings.Split(only, ",")
		}
		if c.IsSet("reconnect-budget") && o.ReconnectBudget <= 0 {
			o.ReconnectBudget = -1 // 0 on the command line: no re-attach
		}
		o.Verbose, o.Terminal = c.Bool("verbose"), isTerminal(c.App.Writer)
		if isTerminal(c.App.ErrWriter) {
			o.Connect.Progress = c.App.ErrWriter
		}
		return *o
	}
}

// startFlags are run's and resume's: the start lead and the re-attach budget.
func startFlags(o *orchestrator.Options) []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.StartLead},
		&cli.DurationFlag{Name: "reconnect-budget", Usage: "how long a host may stay unreachable while a step waits on it, redialing and re-attaching, before the run stops (default: the plan's ssh.reconnect_budget, else 10m; 0: stop at once)", Destination: &o.ReconnectBudget},
	}
}

func runCommand() *cli.Command {
	var o orchestrator.Options
	var only string
	flags, options := orchestratorFlags(&o, append([]cli.Flag{
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.DryRun},
		&cli.StringFlag{Name: "only", Usage: "run only these stages (comma-separated)", Destination: &only},
		&cli.StringFlag{Name: "from", Usage: "start at this stage", Destination: &o.From},
		&cli.StringFlag{Name: "until", Usage: "stop after this stage", Destination: &o.Until},
		&cli.StringFlag{Name: "driver-binary", Usage: "benchrig binary to upload to workload hosts (default: this executable)", Destination: &o.DriverPath},
		&cli.StringFlag{Name: "runs-dir", Value: "runs", Usage: "where run directories are made", Destination: &o.RunsDir},
		&cli.BoolFlag{Name: "skip-preflight", Usage: "leave out the preflight stage (host checks and disk benchmark)", Destination: &o.SkipPreflight},
	}, startFlags(&o)...)...)
	return &cli.Command{Name: "run", Usage: "run a plan's stages on its hosts", ArgsUsage: "PLAN", Description: help("run"), Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one plan file"); err != nil {
				return err
			}
			return orchestrator.Run(c.Context, c.Args().First(), options(c, only))
		},
	}
}

func resumeCommand() *cli.Command {
	var o orchestrator.Options
	flags, options := orchestratorFlags(&o, append([]cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "run this stage and every later one again", Destination: &o.From},
		&cli.BoolFlag{Name: "force", Usage: "resume even though the run's plan or its compiled steps changed since they ran", Destination: &o.Force},
	}, startFlags(&o)...)...)
	return &cli.Command{Name: "resume", Usage: "finish a failed or interrupted run from its run directory", ArgsUsage: "RUN_DIR", Description: help("resume"), Flags: flags,
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			return orchestrator.Resume(c.Context, c.Args().First(), o.From, options(c, ""))
		},
	}
}

func teardownCommand() *cli.Command {
	var o orchestrator.Options
	var wipe, yes bool
	flags, options := orchestratorFlags(&o,
		&cli.BoolFlag{Name: "wipe", Usage: "also remove the stores and work directories", Destination: &wipe},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask before --wipe", Destination: &yes},
		&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.DryRun},
	)
	return &cli.Command{Name: "teardown", ArgsUsage: "RUN_DIR|PLAN", Description: help("teardown"), Flags: flags,
		Usage: "stop the database and benchrig's jobs on every host; --wipe also removes stores and work directories",
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory or plan file"); err != nil {
				return err
			}
			t, err := orchestrator.LoadTeardownTarget(c.Args().First())
			if err == nil && wipe && !yes && !o.DryRun {
				err = orchestrator.ConfirmWipe(c.App.Reader, c.App.ErrWriter, isTerminal(c.App.Reader), t)
			}
			if err != nil {
				return err
			}
			return orchestrator.Teardown(c.Context, t, wipe, options(c, ""))
		},
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{Name: "report", Usage: "write a run's report again (report.md, report.json, plots)", ArgsUsage: "RUN_DIR",
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name one run directory"); err != nil {
				return err
			}
			md, err := orchestrator.Report(c.Args().First(), version)
			if err == nil {
				fmt.Fprintf(c.App.Writer, "report: %s\n", md)
			}
			return err
		},
	}
}
