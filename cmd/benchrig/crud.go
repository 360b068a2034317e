package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/crud"
	"github.com/benchrig/benchrig/tpcc"
)

// crudOptions are the flags of `benchrig crud`.
type crudOptions struct {
	urls         []string
	goroutines   int
	records      int
	selectRepeat int
	manyRepeat   int
	table        string
	drop         bool
	keyOffset    int64
	json         string
	tsv          bool
	label        string
	quiet        bool
}

func crudCommand() *cli.Command {
	var o crudOptions
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
			&cli.IntFlag{Name: "goroutines", Value: 100, Usage: "concurrent clients, one connection each", Destination: &o.goroutines},
			&cli.IntFlag{Name: "records", Value: 400, Usage: "records inserted and updated per goroutine", Destination: &o.records},
			&cli.IntFlag{Name: "select-repeat", Value: 10, Usage: "times each goroutine selects each of its records (0 skips)", Destination: &o.selectRepeat},
			&cli.IntFlag{Name: "many-repeat", Value: 300, Usage: "range queries per goroutine over all its records (0 skips)", Destination: &o.manyRepeat},
			&cli.StringFlag{Name: "table", Value: "crud_bench", Usage: "table name (schema.table allowed)", Destination: &o.table},
			&cli.BoolFlag{Name: "drop", Usage: "drop and recreate the table first (else only this run's keys are deleted)", Destination: &o.drop},
			&cli.Int64Flag{Name: "key-offset", Usage: "shift all keys, so several hosts can share the table", Destination: &o.keyOffset},
			&cli.StringFlag{Name: "json", Usage: "also write the result as JSON to `FILE` (- for stdout; the table then goes to stderr)", Destination: &o.json},
			&cli.BoolFlag{Name: "tsv", Usage: "print the table tab-separated, like the seed, instead of aligned", Destination: &o.tsv},
			&cli.StringFlag{Name: "label", Usage: "first column of the table (the seed's \"Disk Type\"), and the JSON's label", Destination: &o.label},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no per-phase progress on stderr", Destination: &o.quiet},
		},
		Action: func(c *cli.Context) error {
			o.urls = c.Args().Slice()
			return crudRun(c, o, c.App.Writer, c.App.ErrWriter)
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

// crudRun validates the options, runs the benchmark and prints its table
// (and JSON).
func crudRun(c *cli.Context, o crudOptions, stdout, stderr io.Writer) error {
	cfg := crud.Config{
		URLs: o.urls, Goroutines: o.goroutines, Records: o.records,
		SelectRepeat: o.selectRepeat, ManyRepeat: o.manyRepeat,
		Table: o.table, Drop: o.drop, KeyOffset: o.keyOffset,
	}
	if err := cfg.Validate(); err != nil {
		return withExit(exitUsage, fmt.Errorf("crud: %w", err))
	}
	if !o.quiet {
		cfg.Progress = stderr
	}
	// Open the JSON file before the run: a bad path should fail in a
	// second, not after the benchmark.
	var jsonOut io.Writer
	var jsonFile *os.File
	tableOut := stdout
	switch o.json {
	case "":
	case "-":
		jsonOut, tableOut = stdout, stderr
	default:
		f, err := os.Create(o.json)
		if err != nil {
			return fmt.Errorf("crud: --json: %w", err)
		}
		defer f.Close() // on the error paths; closed and checked below
		jsonOut, jsonFile = f, f
	}
	if err := tpcc.CreateDatabase(c.Context, o.urls[0]); err != nil {
		return fmt.Errorf("crud: %w", err)
	}
	res, err := crud.Run(c.Context, cfg)
	var ce *crud.CheckError
	if errors.As(err, &ce) {
		return withExit(exitCheck, err)
	}
	if err != nil {
		return err
	}
	header := ""
	if o.label != "" {
		header = "Label"
	}
	if err := crud.Write(tableOut, o.tsv, header, crud.Row{Label: o.label, Result: res}); err != nil {
		return fmt.Errorf("crud: write table: %w", err)
	}
	if jsonOut != nil {
		if err := crud.WriteJSON(jsonOut, o.label, res); err != nil {
			return fmt.Errorf("crud: --json %s: %w", o.json, err)
		}
		if jsonFile != nil {
			if err := jsonFile.Close(); err != nil {
				return fmt.Errorf("crud: --json %s: %w", o.json, err)
			}
		}
	}
	return nil
}
