package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/crud"
)

func crudCommand() *cli.Command {
	o := struct {
		crud.Config
		crud.Outputs
	}{Config: crud.DefaultConfig()}
	return tagged(&cli.Command{Name: "crud", ArgsUsage: "URL [URL...]", Description: help("crud"), Subcommands: []*cli.Command{crudMergeCommand()},
		Usage: "a CRUD micro-benchmark (as in the disk-type comparison it comes from): N goroutines × M records: inserts, updates, point and range selects"}, &o,
		func(c *cli.Context) error {
			o.URLs = c.Args().Slice()
			if err := o.Validate(); err != nil {
				return usage(fmt.Errorf("crud: %w", err))
			}
			return crud.RunTo(c.Context, o.Config, o.Outputs, c.App.Writer, c.App.ErrWriter)
		})
}

// crudMergeCommand prints the --json results of several hosts as one
// table: a row per host, then "all" (counts summed, each phase as long as
// its slowest host).
func crudMergeCommand() *cli.Command {
	var tsv bool
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the --json results of several hosts into one table",
		ArgsUsage: "FILE...",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "tsv", Usage: "tab-separated, like the seed", Destination: &tsv}},
		Action: func(c *cli.Context) error {
			if err := nargs(c, -1, "name the JSON files"); err != nil {
				return err
			}
			rows, err := crud.MergeFiles(c.Args().Slice()...)
			if err != nil {
				return err
			}
			return crud.Write(c.App.Writer, tsv, "Host", rows...)
		},
	}
}
