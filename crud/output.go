package crud

import (
	"fmt"
	"io"
	"os"
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
