package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
)

type runOptions struct {
	dryRun        bool
	only          string
	from, until   string
	driver        string
	startLead     time.Duration
	runsDir       string
	acceptNew     bool
	knownHosts    string
	identity      string
	skipPreflight bool
	force         bool
	reconnect     time.Duration
}

// orchestrator is the options as orchestrator.Run and Resume take them.
func (o runOptions) orchestrator(c *cli.Context) orchestrator.Options {
	opt := orchestrator.Options{
		Out: c.App.Writer, ErrOut: c.App.ErrWriter, DryRun: o.dryRun,
		From: o.from, Until: o.until, SkipPreflight: o.skipPreflight, DriverPath: o.driver,
		StartLead: o.startLead, RunsDir: o.runsDir, Version: version, Force: o.force,
		Connect: orchestrator.Connect{KnownHosts: o.knownHosts, Identity: o.identity, AcceptNewHostKeys: o.acceptNew},
	}
	if o.only != "" {
		opt.Only = strings.Split(o.only, ",")
	}
	if c.IsSet("reconnect-budget") {
		opt.ReconnectBudget = o.reconnect
		if o.reconnect <= 0 {
			opt.ReconnectBudget = -1 // 0 on the command line: no re-attach
		}
	}
	if isTerminal(c.App.ErrWriter) {
		opt.Connect.Progress = c.App.ErrWriter
	}
	return opt
}

func connectionFlags(o *runOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` (default: the plan's, else ~/.ssh/known_hosts)", Destination: &o.knownHosts},
		&cli.BoolFlag{Name: "accept-new-host-keys", Usage: "add unknown host keys to known_hosts (like StrictHostKeyChecking=accept-new); a changed key is still refused", Destination: &o.acceptNew},
		&cli.StringFlag{Name: "identity", Aliases: []string{"i"}, Usage: "private key `FILE` to offer (after ssh-agent's keys)", Destination: &o.identity},
	}
}

// reconnectFlag is run's and resume's re-attach budget.
func reconnectFlag(o *runOptions) cli.Flag {
	return &cli.DurationFlag{Name: "reconnect-budget", Usage: "how long a host may stay unreachable while a step waits on it, redialing and re-attaching, before the run stops (default: the plan's ssh.reconnect_budget, else 10m; 0: stop at once)", Destination: &o.reconnect}
}

func runCommand() *cli.Command {
	var o runOptions
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
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.dryRun},
			&cli.StringFlag{Name: "only", Usage: "run only these stages (comma-separated)", Destination: &o.only},
			&cli.StringFlag{Name: "from", Usage: "start at this stage", Destination: &o.from},
			&cli.StringFlag{Name: "until", Usage: "stop after this stage", Destination: &o.until},
			&cli.StringFlag{Name: "driver-binary", Usage: "benchrig binary to upload to workload hosts (default: this executable)", Destination: &o.driver},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.startLead},
			&cli.StringFlag{Name: "runs-dir", Value: "runs", Usage: "where run directories are made", Destination: &o.runsDir},
			&cli.BoolFlag{Name: "skip-preflight", Usage: "leave out the preflight stage (host checks and disk benchmark)", Destination: &o.skipPreflight},
			reconnectFlag(&o),
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("run: name one plan file"))
			}
			return orchestrator.Run(c.Context, c.Args().First(), o.orchestrator(c))
		},
	}
}

func resumeCommand() *cli.Command {
	var o runOptions
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
			&cli.StringFlag{Name: "from", Usage: "run this stage and every later one again", Destination: &o.from},
			&cli.BoolFlag{Name: "force", Usage: "resume even though the run's plan or its compiled steps changed since they ran", Destination: &o.force},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.startLead},
			reconnectFlag(&o),
		}, connectionFlags(&o)...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("resume: name one run directory"))
			}
			return orchestrator.Resume(c.Context, c.Args().First(), o.from, o.orchestrator(c))
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
