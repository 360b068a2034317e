package crud

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/benchrig/benchrig/internal/result"
)

// Kind is the result kind of a crud run.
const Kind = "crud"

// jsonResult is the JSON document of a run (benchrig.result/v1, kind
// "crud"; docs/schema/result.v1.json): the configuration, the raw
// counts and durations (exact), and the nine figures in column order with
// the seed's names, so a report can print them without knowing this
// package.
type jsonResult struct {
	result.Header
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
		Header: result.New(Kind), Label: label,
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
	if err := result.Decode(data, &j, Kind); err != nil {
		return "", Result{}, fmt.Errorf("crud: decode result: %w", err)
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
