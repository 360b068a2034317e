package crud

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
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

// jsonResult is the JSON document of a run: the configuration, the raw
// counts and durations (exact), and the nine figures in column order with
// the seed's names, so a report can print them without knowing this
// package.
type jsonResult struct {
	Workload     string `json:"workload"`
	Label        string `json:"label,omitempty"`
	Goroutines   int    `json:"goroutines"`
	Records      int    `json:"records"`
	SelectRepeat int    `json:"select_repeat"`
	ManyRepeat   int    `json:"many_repeat"`
	Inserts      int64  `json:"inserts"`
	Updates      int64  `json:"updates"`
	Selects      int64  `json:"selects"`
	ManyQueries  int64  `json:"many_queries"`
	ManyRows     int64  `json:"many_rows"`
	InsertNanos  int64  `json:"insert_ns"`
	UpdateNanos  int64  `json:"update_ns"`
	SelectNanos  int64  `json:"select_ns"`
	ManyNanos    int64  `json:"many_ns"`
	Latency      struct {
		Insert     jsonLatency `json:"insert"`
		Update     jsonLatency `json:"update"`
		SelectOne  jsonLatency `json:"select_one"`
		SelectMany jsonLatency `json:"select_many"`
	} `json:"latency"`
	Columns []Column `json:"columns"`
}

// jsonLatency is a Latency in integer nanoseconds.
type jsonLatency struct {
	P50 int64 `json:"p50_ns"`
	P95 int64 `json:"p95_ns"`
	P99 int64 `json:"p99_ns"`
	Max int64 `json:"max_ns"`
}

func toJSON(l Latency) jsonLatency {
	return jsonLatency{l.P50.Nanoseconds(), l.P95.Nanoseconds(), l.P99.Nanoseconds(), l.Max.Nanoseconds()}
}

func fromJSON(l jsonLatency) Latency {
	return Latency{time.Duration(l.P50), time.Duration(l.P95), time.Duration(l.P99), time.Duration(l.Max)}
}

// WriteJSON writes one run as a single-line JSON object (see jsonResult).
func WriteJSON(w io.Writer, label string, r Result) error {
	j := jsonResult{
		Workload: "crud", Label: label,
		Goroutines: r.Goroutines, Records: r.Records, SelectRepeat: r.SelectRepeat, ManyRepeat: r.ManyRepeat,
		Inserts: r.Inserts, Updates: r.Updates, Selects: r.Selects, ManyQueries: r.ManyQueries, ManyRows: r.ManyRows,
		InsertNanos: r.InsertDur.Nanoseconds(), UpdateNanos: r.UpdateDur.Nanoseconds(),
		SelectNanos: r.SelectDur.Nanoseconds(), ManyNanos: r.ManyDur.Nanoseconds(),
		Columns: r.Columns(),
	}
	j.Latency.Insert, j.Latency.Update = toJSON(r.InsertLat), toJSON(r.UpdateLat)
	j.Latency.SelectOne, j.Latency.SelectMany = toJSON(r.SelectLat), toJSON(r.ManyLat)
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("crud: encode result: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadJSON decodes a document written by WriteJSON back into its label and
// Result, for the orchestrator's report.
func ReadJSON(data []byte) (label string, r Result, err error) {
	var j jsonResult
	if err := json.Unmarshal(data, &j); err != nil {
		return "", Result{}, fmt.Errorf("crud: decode result: %w", err)
	}
	if j.Workload != "crud" {
		return "", Result{}, fmt.Errorf("crud: decode result: workload %q, want \"crud\"", j.Workload)
	}
	return j.Label, Result{
		Goroutines: j.Goroutines, Records: j.Records, SelectRepeat: j.SelectRepeat, ManyRepeat: j.ManyRepeat,
		Inserts: j.Inserts, Updates: j.Updates, Selects: j.Selects, ManyQueries: j.ManyQueries, ManyRows: j.ManyRows,
		InsertDur: time.Duration(j.InsertNanos), UpdateDur: time.Duration(j.UpdateNanos),
		SelectDur: time.Duration(j.SelectNanos), ManyDur: time.Duration(j.ManyNanos),
		InsertLat: fromJSON(j.Latency.Insert), UpdateLat: fromJSON(j.Latency.Update),
		SelectLat: fromJSON(j.Latency.SelectOne), ManyLat: fromJSON(j.Latency.SelectMany),
	}, nil
}
