package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/remote"
)

type runOptions struct {
	dryRun      bool
	only        string
	from, until string
	driver      string
	startLead   time.Duration
}

func runCommand() *cli.Command {
	var o runOptions
	return &cli.Command{
		Name:      "run",
		Usage:     "run a plan's stages on its hosts",
		ArgsUsage: "PLAN",
		Description: `Compiles the plan into its stages (install, start, init, configure, import,
partition, swap, allocate, run, collect, merge) and runs them host by host.
With --dry-run nothing is contacted: every command, transfer and SQL
statement is printed per host, exactly as a run would send it (secrets as ****).`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would run on every host; connect nowhere", Destination: &o.dryRun},
			&cli.StringFlag{Name: "only", Usage: "run only these stages (comma-separated)", Destination: &o.only},
			&cli.StringFlag{Name: "from", Usage: "start at this stage", Destination: &o.from},
			&cli.StringFlag{Name: "until", Usage: "stop after this stage", Destination: &o.until},
			&cli.StringFlag{Name: "driver-binary", Usage: "benchrig binary to upload to workload hosts (default: this executable)", Destination: &o.driver},
			&cli.DurationFlag{Name: "start-lead", Value: 10 * time.Second, Usage: "how far ahead the common start instant of the run stage is set", Destination: &o.startLead},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("run: name one plan file"))
			}
			return runPlan(c.Context, c.App.Writer, c.Args().First(), o)
		},
	}
}

func runPlan(ctx context.Context, out io.Writer, file string, o runOptions) error {
	p, err := loadPlan(file)
	if err != nil {
		return err
	}
	opt := orchestrator.Options{From: o.from, Until: o.until, DriverPath: o.driver}
	if o.only != "" {
		opt.Only = strings.Split(o.only, ",")
	}
	stages, err := orchestrator.Compile(p, opt)
	if err != nil {
		return withExit(exitUsage, err)
	}
	if !o.dryRun {
		return withExit(exitUsage, errors.New("run: only --dry-run is available in this build; executing plans over SSH is tracked in issue 5"))
	}
	fmt.Fprintf(out, "dry run of plan %s (%s): nothing is contacted; each line is what would be sent to that host\n", p.Name, file)
	r := &orchestrator.Runner{
		Exec:      remote.NewRecorder(),
		Out:       out,
		Listing:   true,
		Limit:     p.SSH.Concurrency,
		StartLead: o.startLead,
		Sleep:     func(context.Context, time.Duration) error { return nil },
	}
	return r.Run(ctx, stages)
}
