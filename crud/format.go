package crud

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The seed's nine column names, exactly as its table prints them.
const (
	ColInsDur     = "Ins Dur (s)"
	ColUpdDur     = "Upd Dur (s)"
	ColSelDur     = "Sel Dur (s)"
	ColManyDur    = "Many Dur (s)"
	ColInsertQPS  = "Insert Q/s"
	ColUpdateQPS  = "Update Q/s"
	ColSelect1QPS = "Select1 Q/s"
	ColSelManyRow = "SelMany Row/s"
	ColSelManyQPS = "SelMany Q/s"
)

// Column is one of the nine figures: its seed name, its JSON key and its
// value (seconds for durations, per second for rates).
type Column struct {
	Name  string  `json:"name"`
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	// Duration marks the four phase durations, printed with two decimals;
	// the rates are printed as integers, as in the seed.
	Duration bool `json:"-"`
}

// Text is the column's value as the tables print it.
func (c Column) Text() string {
	if c.Duration {
		return strconv.FormatFloat(c.Value, 'f', 2, 64)
	}
	return strconv.FormatFloat(c.Value, 'f', 0, 64)
}

// Columns returns the nine figures in the seed's column order.
func (r Result) Columns() []Column {
	return []Column{
		{ColInsDur, "ins_dur_s", r.InsertDur.Seconds(), true},
		{ColUpdDur, "upd_dur_s", r.UpdateDur.Seconds(), true},
		{ColSelDur, "sel_dur_s", r.SelectDur.Seconds(), true},
		{ColManyDur, "many_dur_s", r.ManyDur.Seconds(), true},
		{ColInsertQPS, "insert_qps", r.InsertQPS(), false},
		{ColUpdateQPS, "update_qps", r.UpdateQPS(), false},
		{ColSelect1QPS, "select1_qps", r.Select1QPS(), false},
		{ColSelManyRow, "selmany_rows_per_s", r.SelManyRowsPerSec(), false},
		{ColSelManyQPS, "selmany_qps", r.SelManyQPS(), false},
	}
}

// Row is one line of a table: a label (the seed's "Disk Type" column,
// e.g. a run or host name) and its result.
type Row struct {
	Label  string
	Result Result
}

// table lays the header and cells out; labelHeader "" leaves the label
// column out.
func table(labelHeader string, rows []Row) [][]string {
	var head []string
	if labelHeader != "" {
		head = append(head, labelHeader)
	}
	for _, c := range (Result{}).Columns() {
		head = append(head, c.Name)
	}
	out := [][]string{head}
	for _, r := range rows {
		var line []string
		if labelHeader != "" {
			line = append(line, r.Label)
		}
		for _, c := range r.Result.Columns() {
			line = append(line, c.Text())
		}
		out = append(out, line)
	}
	return out
}

// WriteTSV writes the seed's table: a header and one line per row, cells
// separated by single tabs (paste it next to the seed's numbers).
func WriteTSV(w io.Writer, labelHeader string, rows ...Row) error {
	var b strings.Builder
	for _, line := range table(labelHeader, rows) {
		b.WriteString(strings.Join(line, "\t"))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteAligned writes the same table with the columns padded to line up,
// numbers right-aligned, for a terminal.
func WriteAligned(w io.Writer, labelHeader string, rows ...Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, line := range table(labelHeader, rows) {
		// AlignRight pads before each cell; a trailing tab terminates the
		// last cell so it is aligned too.
		if _, err := fmt.Fprint(tw, strings.Join(line, "\t")+"\t\n"); err != nil {
			return err
		}
	}
	return tw.Flush()
}
