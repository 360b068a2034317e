package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
)

// runOptions completes the options the flags wrote into: --only, the
// writers, the version and the progress terminal.
func runOptions(c *cli.Context, o *orchestrator.Options, only string) orchestrator.Options {
	o.Out, o.ErrOut, o.Version = c.App.Writer, c.App.ErrWriter, version
	o.AllowSettings = c.StringSlice("allow-setting")
	if only != "" {
		o.Only = strings.Split(only, ",")
	}
	if c.IsSet("reconnect-budget") && o.ReconnectBudget <= 0 {
		o.ReconnectBudget = -1 // 0 on the command line: no re-attach
	}
	if isTerminal(c.App.ErrWriter) {
		o.Connect.Progress = c.App.ErrWriter
	}
	return *o
}

func connectionFlags(o *orchestrator.Options) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` (default: the plan's, else ~/.ssh/known_hosts)", Destination: &o.Connect.KnownHosts},
		&cli.BoolFlag{Name: "accept-new-host-keys", Usage: "add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused", Destination: &o.Connect.AcceptNewHostKeys},
		&cli.BoolFlag{Name: "create-known-hosts", Usage: "with --accept-new-host-keys, create the known_hosts file if it does not exist (only ~/.ssh/known_hosts is created without it)", Destination: &o.Connect.CreateKnownHosts},
		&cli.StringFlag{Name: "identity", Aliases: []string{"i"}, Usage: "private key `FILE` to offer (after ssh-agent's keys)", Destination: &o.Connect.Identity},
		allowSettingFlag(nil),
	}
}

// reconnectFlag is run's and resume's re-attach budget.
func reconnectFlag(o *orchestrator.Options) cli.Flag {
	return &cli.DurationFlag{Name: "reconnect-budget", Usage: "how long a host may stay unreachable while a step waits on it, redialing and re-attaching, before the run stops (default: the plan's ssh.reconnect_budget, else 10m; 0: stop at once)", Destination: &o.ReconnectBudget}
}

// allowSettingFlag is --allow-setting: the operator, not the plan, lets
// the plan set a database setting that runs a command, loads code or
// sends data elsewhere (archive_command, shared_preload_libraries, ...).
func allowSettingFlag(dst *cli.StringSlice) cli.Flag {
	return &cli.StringSliceFlag{Name: "allow-setting", Usage: "let the plan set database setting `NAME` although it runs commands, loads code or sends data elsewhere (repeatable)", Destination: dst}
}

func runCommand() *cli.Command {
	var o orchestrator.Options
	var only string
	return &cli.Command{
		Name:      "run",
		Usage:     "run a plan's stages on its hosts",
		ArgsUsage: "PLAN",
		Description: `Compiles the plan into its stages (install, start, init, configure, import,
partition, swap, allocate, run, collect, merge) and runs them host by host,
recording progress in runs/<plan>-<time>-<random>/ so that 'benchrig resume' can
finish a failed or interrupted run. With --dry-run nothing is contacted:
every command, transfer and SQL statement is printed per host, exactly as a
run would send it (secrets as ****).`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.DryRun},
			&cli.StringFlag{Name: "only", Usage: "run only these stages (comma-separated)", Destination: &only},
			&cli.StringFlag{Name: "from", Usage: "start at this stage", Destination: &o.From},
			&cli.StringFlag{Name: "until", Usage: "stop after this stage", Destination: &o.Until},
			&cli.StringFlag{Name: "driver-binary", Usage: "benchrig binary to upload to workload hosts (default: this executable)", Destination: &o.DriverPath},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.StartLead},
			&cli.StringFlag{Name: "runs-dir", Value: "runs", Usage: "where run directories are made", Destination: &o.RunsDir},
			&cli.BoolFlag{Name: "skip-preflight", Usage: "leave out the preflight stage (host checks and disk benchmark)", Destination: &o.SkipPreflight},
			reconnectFlag(&o),
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("run: name one plan file"))
			}
			return orchestrator.Run(c.Context, c.Args().First(), runOptions(c, &o, only))
		},
	}
}

func resumeCommand() *cli.Command {
	var o orchestrator.Options
	return &cli.Command{
		Name:      "resume",
		Usage:     "finish a failed or interrupted run from its run directory",
		ArgsUsage: "RUN_DIR",
		Description: `Continues from the first unfinished step of every host; finished steps are
not repeated, detached jobs still running are re-attached, and jobs that
were killed (SIGKILL, host restart) are started again. --from STAGE forces
that stage and every later one to run again.

The run's copy of the plan must be the one it started with (sha256), and
every step must compile to the command the run recorded; otherwise resume
says what changed and stops (--force goes on). A run that another
benchrig process still drives is refused, naming its pid.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "run this stage and every later one again", Destination: &o.From},
			&cli.BoolFlag{Name: "force", Usage: "resume even though the run's plan or its compiled steps changed since they ran", Destination: &o.Force},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.StartLead},
			reconnectFlag(&o),
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("resume: name one run directory"))
			}
			return orchestrator.Resume(c.Context, c.Args().First(), o.From, runOptions(c, &o, ""))
		},
	}
}

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "write a run's report again (report.md, report.json, plots)",
		ArgsUsage: "RUN_DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("report: name one run directory"))
			}
			md, err := orchestrator.Report(c.Args().First(), version)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "report: %s\n", md)
			return nil
		},
	}
}
