package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/crud"
)

func crudCommand() *cli.Command {
	var cfg crud.Config
	var o crud.Outputs
	return &cli.Command{
		Name:      "crud",
		Usage:     "a CRUD micro-benchmark (as in the disk-type comparison it comes from): N goroutines × M records: inserts, updates, point and range selects",
		ArgsUsage: "URL [URL...]",
		Description: `Runs four phases one after another, each timed wall-clock across all
goroutines: every goroutine inserts its --records records (id BIGINT, content
TEXT), updates each once, selects each by key --select-repeat times, then
runs --many-repeat range queries each returning all of its records. Prints
the seed's nine columns (Ins/Upd/Sel/Many Dur (s), Insert/Update/Select1
Q/s, SelMany Row/s and Q/s). Goroutine g connects to URL g % len(URLs); the
database of the first URL is created if missing.

Every phase checks the database's answers (one row per update, the updated
content on select, whole ranges on select-many); a mismatch exits 30.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "goroutines", Value: 100, Usage: "concurrent clients, one connection each", Destination: &cfg.Goroutines},
			&cli.IntFlag{Name: "records", Value: 400, Usage: "records inserted and updated per goroutine", Destination: &cfg.Records},
			&cli.IntFlag{Name: "select-repeat", Value: 10, Usage: "times each goroutine selects each of its records (0 skips)", Destination: &cfg.SelectRepeat},
			&cli.IntFlag{Name: "many-repeat", Value: 300, Usage: "range queries per goroutine over all its records (0 skips)", Destination: &cfg.ManyRepeat},
			&cli.StringFlag{Name: "table", Value: "crud_bench", Usage: "table name (schema.table allowed)", Destination: &cfg.Table},
			&cli.BoolFlag{Name: "drop", Usage: "drop and recreate the table first (else only this run's keys are deleted)", Destination: &cfg.Drop},
			&cli.Int64Flag{Name: "key-offset", Usage: "shift all keys, so several hosts can share the table", Destination: &cfg.KeyOffset},
			&cli.StringFlag{Name: "json", Usage: "also write the result as JSON to `FILE` (- for stdout; the table then goes to stderr)", Destination: &o.JSON},
			&cli.BoolFlag{Name: "tsv", Usage: "print the table tab-separated, like the seed, instead of aligned", Destination: &o.TSV},
			&cli.StringFlag{Name: "label", Usage: "first column of the table (the seed's \"Disk Type\"), and the JSON's label", Destination: &o.Label},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no per-phase progress on stderr", Destination: &o.Quiet},
		},
		Action: func(c *cli.Context) error {
			cfg.URLs = c.Args().Slice()
			if err := cfg.Validate(); err != nil {
				return withExit(exitUsage, fmt.Errorf("crud: %w", err))
			}
			return crud.RunTo(c.Context, cfg, o, c.App.Writer, c.App.ErrWriter)
		},
		Subcommands: []*cli.Command{crudMergeCommand()},
	}
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
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "tsv", Usage: "tab-separated, like the seed", Destination: &tsv},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return withExit(exitUsage, errors.New("crud merge: name the JSON files"))
			}
			rows, err := crud.MergeFiles(c.Args().Slice()...)
			if err != nil {
				return err
			}
			return crud.Write(c.App.Writer, tsv, "Host", rows...)
		},
	}
}
