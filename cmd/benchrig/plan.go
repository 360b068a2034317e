package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

func planCommand() *cli.Command {
	var allow cli.StringSlice
	return &cli.Command{
		Name:  "plan",
		Usage: "validate plans and show their topology",
		Subcommands: []*cli.Command{
			{
				Name:      "validate",
				Usage:     "check plan files; every problem is reported as file:line:col",
				ArgsUsage: "PLAN...",
				Flags:     []cli.Flag{allowSettingFlag(&allow)},
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return withExit(exitUsage, errors.New("plan validate: name at least one plan file"))
					}
					return validatePlans(c, c.Args().Slice(), plan.Options{AllowSettings: allow.Value()})
				},
			},
			{
				Name:      "show",
				Usage:     "print the expanded topology: hosts, racks, partitions, addresses",
				ArgsUsage: "PLAN",
				Description: `--json prints the expanded plan as one JSON document (schema
benchrig.plan/v1, docs/schema/plan.v1.json).`,
				Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "machine-readable output (benchrig.plan/v1)"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return withExit(exitUsage, errors.New("plan show: name one plan file"))
					}
					// Looking at a plan does not read its licence.
					p, err := orchestrator.LoadPlan(c.Args().First(), plan.Options{Unresolved: true})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return orchestrator.ShowJSON(c.App.Writer, p)
					}
					return orchestrator.Show(c.App.Writer, p)
				},
			},
		},
	}
}

// validatePlans checks every file and reports each one's result; the
// error (exit 3) comes after all files were checked.
func validatePlans(c *cli.Context, files []string, opts plan.Options) error {
	bad, unreadable := 0, 0
	for _, f := range files {
		p, err := orchestrator.LoadPlan(f, opts)
		var ue *orchestrator.UsageError
		if errors.As(err, &ue) {
			unreadable++
			fmt.Fprintln(c.App.ErrWriter, err)
			continue
		}
		if err != nil {
			bad++
			fmt.Fprintln(c.App.ErrWriter, err)
			continue
		}
		fmt.Fprintf(c.App.Writer, "%s: ok (%s, %d nodes, %d workload hosts, stages %d)\n", f, p.Flavor, len(p.Nodes), len(p.Workload), len(p.Stages))
	}
	if bad > 0 {
		return withExit(exitInvalidPlan, fmt.Errorf("%d of %d plans invalid", bad, len(files)))
	}
	if unreadable > 0 {
		return withExit(exitUsage, fmt.Errorf("%d of %d plan files could not be read", unreadable, len(files)))
	}
	return nil
}
