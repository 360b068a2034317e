package crud

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/benchrig/benchrig/internal/pgdb"
)

// Write prints rows as the seed's table, tab-separated (tsv) or aligned.
func Write(w io.Writer, tsv bool, labelHeader string, rows ...Row) error {
	if tsv {
		return WriteTSV(w, labelHeader, rows...)
	}
	return WriteAligned(w, labelHeader, rows...)
}

// MergeFiles reads the JSON results of several hosts (WriteJSON's
// files) as rows, one per file labelled by the result's label or else
// the file name, then, for more than one, "all": Combine of them all
// (counts summed, each phase as long as its slowest host).
func MergeFiles(paths ...string) ([]Row, error) {
	var rows []Row
	var all []Result
	for _, f := range paths {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		label, r, err := ReadJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if label == "" {
			label = f
		}
		rows = append(rows, Row{Label: label, Result: r})
		all = append(all, r)
	}
	if len(rows) > 1 {
		rows = append(rows, Row{Label: "all", Result: Combine(all...)})
	}
	return rows, nil
}

// Outputs say where `benchrig crud` prints: the table (TSV or aligned,
// its first column Label), the JSON result (JSON: a file, "-" for
// standard output, which sends the table to standard error) and, unless
// Quiet, per-phase progress on standard error.
type Outputs struct {
	JSON  string `flag:"json" usage:"also write the result as JSON to FILE (- for stdout; the table then goes to stderr)" arg:"FILE"`
	TSV   bool   `flag:"tsv" usage:"print the table tab-separated, like the seed, instead of aligned"`
	Label string `flag:"label" usage:"first column of the table (the seed's \"Disk Type\"), and the JSON's label"`
	Quiet bool   `flag:"quiet,q" usage:"no per-phase progress on stderr"`
}

// RunTo creates the first URL's database if missing, runs the benchmark
// and prints its table and JSON as o says. The JSON file is created
// before the run, so a bad path fails in a second, not after the
// benchmark. A wrong database answer is a *CheckError.
func RunTo(ctx context.Context, cfg Config, o Outputs, stdout, stderr io.Writer) error {
	if !o.Quiet {
		cfg.Progress = stderr
	}
	var jsonOut io.Writer
	var jsonFile *os.File
	tableOut := stdout
	switch o.JSON {
	case "":
	case "-":
		jsonOut, tableOut = stdout, stderr
	default:
		f, err := os.Create(o.JSON)
		if err != nil {
			return fmt.Errorf("crud: --json: %w", err)
		}
		defer f.Close() // on the error paths; closed and checked below
		jsonOut, jsonFile = f, f
	}
	if err := pgdb.CreateDatabase(ctx, cfg.URLs[0]); err != nil {
		return fmt.Errorf("crud: %w", err)
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		return err
	}
	header := ""
	if o.Label != "" {
		header = "Label"
	}
	if err := Write(tableOut, o.TSV, header, Row{Label: o.Label, Result: res}); err != nil {
		return fmt.Errorf("crud: write table: %w", err)
	}
	if jsonOut != nil {
		if err := WriteJSON(jsonOut, o.Label, res); err != nil {
			return fmt.Errorf("crud: --json %s: %w", o.JSON, err)
		}
		if jsonFile != nil {
			if err := jsonFile.Close(); err != nil {
				return fmt.Errorf("crud: --json %s: %w", o.JSON, err)
			}
		}
	}
	return nil
}
