package result

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchrig/benchrig/tpcc/histogram"
)

// TicksSchema names the format of the --ticks files; every JSON line
// carries it (docs/schema/ticks.v1.json).
const TicksSchema = "benchrig.ticks/v1"

// TickPhase says which part of a run a tick belongs to.
type TickPhase string

const (
	// PhaseRamp ticks are before the ramp's end, which resets every
	// cumulative figure (CockroachDB's rule); they are not measured.
	PhaseRamp TickPhase = "ramp"
	// PhaseRun ticks are the measurement interval's periodic ticks.
	PhaseRun TickPhase = "run"
	// PhaseFinal is the partial tick from the last periodic one to the
	// end of the run; its cumulative figures are the run's totals.
	PhaseFinal TickPhase = "final"
)

// TickStats is one display tick: everything the console's periodic lines
// and the --ticks files show. Both are formatted from the same value, so
// they cannot disagree.
type TickStats struct {
	Now     time.Time
	Elapsed time.Duration // since the measurement started (the run's start during the ramp)
	Phase   TickPhase
	Txns    []TxnTick // sorted by name, as the console prints them

	// Live tpmC: New-Orders per minute this tick and so far. HasTpmC is
	// false when no New-Order operation is recorded (a custom mix).
	HasTpmC       bool
	TpmC, TpmCCum float64

	// Terminals is how many terminals (no-wait workers) have started so
	// far: during a ramp it shows them joining.
	Terminals int64
}

// TxnTick is one transaction type's figures for a tick. Cumulative
// figures (…Cum) count from the measurement's start (the run's start
// during the ramp); latencies are this tick's, in milliseconds.
type TxnTick struct {
	Name                    string
	Interval                time.Duration // this tick's length for the type
	Count, CountCum         int64         // completed transactions
	Errors, ErrorsCum       int64         // failed transactions (retries exhausted included)
	Retries, RetriesCum     int64         // serialization failures and deadlocks retried
	OpsPerSec, OpsPerSecCum float64
	P50, P95, P99, Max      float64

	// Cumulative is the latency histogram since the measurement's start
	// (the run's start during the ramp): the live metrics' buckets. It is
	// the sink's to read, never written to a --ticks file.
	Cumulative *hdr.Histogram
}

// Errors is the errors of every type so far: the console's errors column.
func (t TickStats) Errors() int64 {
	var n int64
	for _, x := range t.Txns {
		n += x.ErrorsCum
	}
	return n
}

// TickCounts are the counters a tick reads besides the histograms, by
// transaction name, counted since the measurement's start: failed
// transactions and retries.
type TickCounts struct {
	Errors, Retries map[string]int64
}

// TickBuilder turns the recorder's intervals and the counters into
// TickStats, remembering the previous counters for per-tick deltas.
type TickBuilder struct {
	prev TickCounts
}

// Reset follows the counters' reset at the ramp's end.
func (b *TickBuilder) Reset() { b.prev = TickCounts{} }

// Build is the tick at now, elapsed since the measurement's start: the
// recorder's intervals ivs and the counters cur. A name cur does not
// count has no errors or retries.
func (b *TickBuilder) Build(now time.Time, elapsed time.Duration, phase TickPhase, ivs []histogram.Interval, cur TickCounts) TickStats {
	ts := TickStats{Now: now, Elapsed: elapsed, Phase: phase, Txns: make([]TxnTick, 0, len(ivs))}
	for _, iv := range ivs {
		x := TxnTick{
			Name: iv.Name, Interval: iv.Elapsed,
			Count: iv.Hist.TotalCount(), CountCum: iv.Cumulative.TotalCount(), Cumulative: iv.Cumulative,
			P50: ms(iv.Hist, 50), P95: ms(iv.Hist, 95), P99: ms(iv.Hist, 99), Max: ms(iv.Hist, 100),
		}
		x.OpsPerSec = rate(x.Count, iv.Elapsed)
		x.OpsPerSecCum = rate(x.CountCum, elapsed)
		x.ErrorsCum, x.RetriesCum = cur.Errors[iv.Name], cur.Retries[iv.Name]
		x.Errors, x.Retries = x.ErrorsCum-b.prev.Errors[iv.Name], x.RetriesCum-b.prev.Retries[iv.Name]
		ts.Txns = append(ts.Txns, x)
		if iv.Name == histogram.NewOrder {
			ts.HasTpmC = true
			ts.TpmC, ts.TpmCCum = 60*x.OpsPerSec, 60*x.OpsPerSecCum
		}
	}
	// A copy: the caller may count on in cur's maps.
	b.prev = TickCounts{Errors: maps.Clone(cur.Errors), Retries: maps.Clone(cur.Retries)}
	return ts
}

// rate is n per second of d (0 for no time).
func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// TickFormat is the encoding of a --ticks file.
type TickFormat int

const (
	// TicksJSONLines: one JSON object per line, each with "schema".
	TicksJSONLines TickFormat = iota
	// TicksCSV: a header row, then one row per transaction type and tick
	// and one per tpmC figure, the columns of ticksColumns.
	TicksCSV
)

// TickFormatOf picks the format from a file name's extension: .jsonl or
// .ndjson for JSON lines, .csv for CSV.
func TickFormatOf(name string) (TickFormat, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson":
		return TicksJSONLines, nil
	case ".csv":
		return TicksCSV, nil
	}
	return 0, fmt.Errorf("%q: want a .jsonl, .ndjson or .csv file name (the extension picks the format)", name)
}

// ticksColumns are the CSV columns, in order. They are the JSON lines'
// fields; a txn row leaves the tpmC columns empty and a tpmc row the
// transaction columns. v1 only ever appends columns.
var ticksColumns = []string{
	"kind", "time", "elapsed_s", "phase", "name", "interval_s",
	"count", "count_cum", "errors", "errors_cum", "retries", "retries_cum",
	"ops_per_sec", "ops_per_sec_cum", "p50_ms", "p95_ms", "p99_ms", "max_ms",
	"tpmc", "tpmc_cum",
}

// TickWriter writes TickStats to a --ticks file, flushing every tick so
// that a killed run leaves every completed tick on disk.
type TickWriter struct {
	w      *bufio.Writer
	format TickFormat
	csv    *csv.Writer
	header bool
}

// NewTickWriter writes ticks to w in format.
func NewTickWriter(w io.Writer, format TickFormat) *TickWriter {
	bw := bufio.NewWriter(w)
	tw := &TickWriter{w: bw, format: format}
	if format == TicksCSV {
		tw.csv = csv.NewWriter(bw)
	}
	return tw
}

// TxnLine and TpmCLine are the JSON lines of a --ticks file
// (docs/schema/ticks.v1.json): a transaction type's figures of a tick,
// and the tick's tpmC.
type TxnLine struct {
	Schema       string    `json:"schema"`
	Kind         string    `json:"kind"`
	Time         time.Time `json:"time"`
	ElapsedS     float64   `json:"elapsed_s"`
	Phase        TickPhase `json:"phase"`
	Name         string    `json:"name"`
	IntervalS    float64   `json:"interval_s"`
	Count        int64     `json:"count"`
	CountCum     int64     `json:"count_cum"`
	Errors       int64     `json:"errors"`
	ErrorsCum    int64     `json:"errors_cum"`
	Retries      int64     `json:"retries"`
	RetriesCum   int64     `json:"retries_cum"`
	OpsPerSec    float64   `json:"ops_per_sec"`
	OpsPerSecCum float64   `json:"ops_per_sec_cum"`
	P50          float64   `json:"p50_ms"`
	P95          float64   `json:"p95_ms"`
	P99          float64   `json:"p99_ms"`
	Max          float64   `json:"max_ms"`
}

type TpmCLine struct {
	Schema   string    `json:"schema"`
	Kind     string    `json:"kind"`
	Time     time.Time `json:"time"`
	ElapsedS float64   `json:"elapsed_s"`
	Phase    TickPhase `json:"phase"`
	TpmC     float64   `json:"tpmc"`
	TpmCCum  float64   `json:"tpmc_cum"`
	// Terminals: TickStats.Terminals (omitted when 0).
	Terminals int64 `json:"terminals,omitempty"`
}

// Write writes one tick's rows and flushes them.
func (tw *TickWriter) Write(ts TickStats) error {
	if tw.format == TicksCSV {
		tw.writeCSV(ts)
	} else if err := tw.writeJSON(ts); err != nil {
		return err
	}
	return tw.w.Flush()
}

func (tw *TickWriter) writeJSON(ts TickStats) error {
	enc := json.NewEncoder(tw.w)
	el := ts.Elapsed.Seconds()
	for _, x := range ts.Txns {
		if err := enc.Encode(TxnLine{
			Schema: TicksSchema, Kind: "txn", Time: ts.Now.UTC(), ElapsedS: el, Phase: ts.Phase,
			Name: x.Name, IntervalS: x.Interval.Seconds(),
			Count: x.Count, CountCum: x.CountCum, Errors: x.Errors, ErrorsCum: x.ErrorsCum,
			Retries: x.Retries, RetriesCum: x.RetriesCum,
			OpsPerSec: x.OpsPerSec, OpsPerSecCum: x.OpsPerSecCum,
			P50: x.P50, P95: x.P95, P99: x.P99, Max: x.Max,
		}); err != nil {
			return err
		}
	}
	if ts.HasTpmC {
		return enc.Encode(TpmCLine{Schema: TicksSchema, Kind: "tpmc", Time: ts.Now.UTC(), ElapsedS: el,
			Phase: ts.Phase, TpmC: ts.TpmC, TpmCCum: ts.TpmCCum, Terminals: ts.Terminals})
	}
	return nil
}

func (tw *TickWriter) writeCSV(ts TickStats) {
	if !tw.header {
		tw.header = true
		_ = tw.csv.Write(ticksColumns)
	}
	now := ts.Now.UTC().Format(time.RFC3339Nano)
	el := num(ts.Elapsed.Seconds())
	i := strconv.FormatInt
	for _, x := range ts.Txns {
		_ = tw.csv.Write([]string{"txn", now, el, string(ts.Phase), x.Name, num(x.Interval.Seconds()),
			i(x.Count, 10), i(x.CountCum, 10), i(x.Errors, 10), i(x.ErrorsCum, 10), i(x.Retries, 10), i(x.RetriesCum, 10),
			num(x.OpsPerSec), num(x.OpsPerSecCum), num(x.P50), num(x.P95), num(x.P99), num(x.Max), "", ""})
	}
	if ts.HasTpmC {
		_ = tw.csv.Write([]string{"tpmc", now, el, string(ts.Phase), "", "",
			"", "", "", "", "", "", "", "", "", "", "", "", num(ts.TpmC), num(ts.TpmCCum)})
	}
	// Errors of the csv writer are those of tw.w, reported by its Flush.
	tw.csv.Flush()
}

// TicksColumns are the columns of a CSV --ticks file, in order (its
// header row).
func TicksColumns() []string { return slices.Clone(ticksColumns) }

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// TickSink receives every display tick of a run (a *TickWriter for
// --ticks, *LiveMetrics for --prometheus-port); an error stops the run.
type TickSink interface {
	Write(TickStats) error
}

// TickSinks hands every tick to each sink in turn; the first error stops.
type TickSinks []TickSink

// Write writes ts to every sink.
func (s TickSinks) Write(ts TickStats) error {
	for _, k := range s {
		if err := k.Write(ts); err != nil {
			return err
		}
	}
	return nil
}
