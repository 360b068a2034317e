package tpcc

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// fixedTicks are five one-second ticks with New-Order and Payment
// latencies, errors and retries; the first two are the ramp (one second
// each) whose end resets the counters, as Run does.
func fixedTicks(t *testing.T) []TickStats {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := histogram.NewRecorder(t0, histogram.TPCCNames()...)
	no := rec.Op(histogram.NewOrder, t0)
	pay := rec.Op(histogram.Payment, t0)
	var tb tickBuilder
	var cur tickCounts
	var out []TickStats
	measureStart := t0
	for s := 1; s <= 5; s++ {
		for i := range 10 * s {
			no.Record(time.Duration(i+1) * time.Millisecond)
			pay.Record(time.Duration(i+1) * 500 * time.Microsecond)
		}
		cur.errors[PaymentTxn] += int64(s - 1)
		cur.retries[NewOrderTxn] += int64(2 * s)
		now := t0.Add(time.Duration(s) * time.Second)
		phase := PhaseRun
		if s <= 2 {
			phase = PhaseRamp
		}
		out = append(out, tb.build(now, now.Sub(measureStart), phase, rec.Tick(now), cur))
		if s == 2 { // the ramp's end
			measureStart = now
			rec.Reset(now)
			cur = tickCounts{}
			tb.reset()
		}
	}
	// The final partial tick, a quarter second after the last.
	no.Record(3 * time.Millisecond)
	now := t0.Add(5250 * time.Millisecond)
	out = append(out, tb.build(now, now.Sub(measureStart), PhaseFinal, rec.Tick(now), cur))
	return out
}

func writeTicks(t *testing.T, f TickFormat, ticks []TickStats) string {
	t.Helper()
	var b bytes.Buffer
	tw := NewTickWriter(&b, f)
	for _, ts := range ticks {
		if err := tw.Write(ts); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestTicksGolden(t *testing.T) {
	ticks := fixedTicks(t)
	golden(t, "ticks.jsonl", writeTicks(t, TicksJSONLines, ticks))
	golden(t, "ticks.csv", writeTicks(t, TicksCSV, ticks))
}

// TestTicksMatchConsole: the figures of the console's lines and the files'
// rows are the same numbers, tick by tick.
func TestTicksMatchConsole(t *testing.T) {
	ticks := fixedTicks(t)
	jl := strings.Split(strings.TrimSpace(writeTicks(t, TicksJSONLines, ticks)), "\n")
	var i int
	for _, ts := range ticks {
		var b bytes.Buffer
		newReporter(&b).progress(ts)
		for _, x := range ts.Txns {
			var l txnLine
			if err := json.Unmarshal([]byte(jl[i]), &l); err != nil {
				t.Fatal(err)
			}
			i++
			want := consoleRow(ts.Elapsed.Seconds(), ts.Errors(), l.OpsPerSec, l.OpsPerSecCum, l.P50, l.P95, l.P99, l.Max, x.Name)
			if !strings.Contains(b.String(), want) {
				t.Errorf("console lacks the file's row %q:\n%s", want, b.String())
			}
		}
		if ts.HasTpmC {
			var l tpmcLine
			if err := json.Unmarshal([]byte(jl[i]), &l); err != nil {
				t.Fatal(err)
			}
			i++
			if l.Kind != "tpmc" || !strings.Contains(b.String(), fmtTpmC(l.TpmC)+" (this tick) "+fmtTpmC(l.TpmCCum)+" (so far)") {
				t.Errorf("console and file differ on tpmC %v/%v:\n%s", l.TpmC, l.TpmCCum, b.String())
			}
		}
	}
	if i != len(jl) {
		t.Errorf("%d JSON lines, %d from the ticks", len(jl), i)
	}
}

func consoleRow(el float64, errs int64, ops, cum, p50, p95, p99, pmax float64, name string) string {
	var b bytes.Buffer
	newReporter(&b).progress(TickStats{Elapsed: time.Duration(el * float64(time.Second)), Txns: []TxnTick{{
		Name: name, ErrorsCum: errs, OpsPerSec: ops, OpsPerSecCum: cum, P50: p50, P95: p95, P99: p99, Max: pmax}}})
	return strings.Split(b.String(), "\n")[1]
}

func fmtTpmC(f float64) string { return strings.TrimSpace(strings.Split(consoleTpmC(f), " ")[0]) }

func consoleTpmC(f float64) string {
	var b bytes.Buffer
	newReporter(&b).progress(TickStats{HasTpmC: true, TpmC: f})
	_, after, _ := strings.Cut(b.String(), "tpmC ")
	return after
}

// TestTicksSchema: every JSON line matches docs/schema/ticks.v1.json, and
// the schema rejects what v1 does not allow.
func TestTicksSchema(t *testing.T) {
	s, err := jsonschema.Load("../docs/schema/ticks.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	validateTicks(t, s, writeTicks(t, TicksJSONLines, fixedTicks(t)))
	for _, bad := range []string{
		`{"schema":"benchrig.ticks/v2","kind":"tpmc","time":"2026-01-01T00:00:01Z","elapsed_s":1,"phase":"run","tpmc":1,"tpmc_cum":1}`,
		`{"schema":"benchrig.ticks/v1","kind":"tpmc","time":"2026-01-01T00:00:01Z","elapsed_s":1,"phase":"warmup","tpmc":1,"tpmc_cum":1}`,
		`{"schema":"benchrig.ticks/v1","kind":"tpmc","time":"2026-01-01T00:00:01Z","elapsed_s":1,"phase":"run","tpmc":-1,"tpmc_cum":1}`,
		`{"schema":"benchrig.ticks/v1","kind":"txn","time":"2026-01-01T00:00:01Z","elapsed_s":1,"phase":"run","name":"newOrder"}`,
	} {
		if errs := s.Validate([]byte(bad)); len(errs) == 0 {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

func validateTicks(t *testing.T, s *jsonschema.Schema, jsonl string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	n := 0
	for sc.Scan() {
		n++
		if errs := s.Validate(sc.Bytes()); len(errs) > 0 {
			t.Errorf("line %d does not match docs/schema/ticks.v1.json: %s\n%s", n, strings.Join(errs, "; "), sc.Text())
		}
	}
	if n == 0 {
		t.Error("no tick lines")
	}
}

// TestTicksCSVShape: a header, then rows of the header's width, which
// encoding/csv reads back.
func TestTicksCSVShape(t *testing.T) {
	rows, err := csv.NewReader(strings.NewReader(writeTicks(t, TicksCSV, fixedTicks(t)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(ticksColumns, ",") {
		t.Errorf("header %v", rows[0])
	}
	// 6 ticks × (5 transaction types + tpmC).
	if len(rows) != 1+6*6 {
		t.Errorf("%d rows, want 37", len(rows))
	}
}

func TestTickFormatOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want TickFormat
		ok   bool
	}{
		{"w1.ticks.jsonl", TicksJSONLines, true},
		{"W1.NDJSON", TicksJSONLines, true},
		{"/tmp/t.csv", TicksCSV, true},
		{"ticks.json", 0, false},
		{"ticks", 0, false},
	} {
		got, err := TickFormatOf(tc.name)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("TickFormatOf(%q) = %v, %v", tc.name, got, err)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestTickWriterError: a write error reaches the caller (Run stops on it).
func TestTickWriterError(t *testing.T) {
	for _, f := range []TickFormat{TicksJSONLines, TicksCSV} {
		if err := NewTickWriter(failWriter{}, f).Write(fixedTicks(t)[0]); err == nil {
			t.Errorf("format %d: no error from a failing writer", f)
		}
	}
}

// checkRunTicks judges a real run's --ticks file: it matches the schema
// (JSON lines) or the header (CSV), has run and final ticks, one
// tpmC row per console tpmC line plus the final one, and its final
// cumulative figures are the run's totals.
func checkRunTicks(t *testing.T, format TickFormat, file, console string, res *RunResult) {
	t.Helper()
	var rows []map[string]string
	if format == TicksJSONLines {
		s, err := jsonschema.Load("../docs/schema/ticks.v1.json")
		if err != nil {
			t.Fatal(err)
		}
		validateTicks(t, s, file)
		for _, line := range strings.Split(strings.TrimSpace(file), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			row := map[string]string{}
			for k, v := range m {
				b, _ := json.Marshal(v)
				row[k] = strings.Trim(string(b), `"`)
			}
			rows = append(rows, row)
		}
	} else {
		recs, err := csv.NewReader(strings.NewReader(file)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) < 2 || strings.Join(recs[0], ",") != strings.Join(ticksColumns, ",") {
			t.Fatalf("CSV without its header:\n%s", file)
		}
		for _, r := range recs[1:] {
			row := map[string]string{}
			for i, c := range recs[0] {
				row[c] = r[i]
			}
			rows = append(rows, row)
		}
	}
	phases := map[string]int{}
	tpmcRows := 0
	final := map[string]map[string]string{}
	for _, r := range rows {
		phases[r["phase"]]++
		if r["kind"] == "tpmc" {
			tpmcRows++
		}
		if r["phase"] == "final" && r["kind"] == "txn" {
			final[r["name"]] = r
		}
	}
	// A ramp as long as one tick has no ramp tick: the first tick is
	// the ramp's end, which prints no progress.
	if phases["run"] == 0 || phases["final"] != 6 || len(phases) > 3 {
		t.Errorf("ticks by phase %v: want run ticks and one final tick of 6 rows", phases)
	}
	if n := strings.Count(console, "(so far)"); tpmcRows != n+1 {
		t.Errorf("%d tpmC rows in the file, %d on the console (+1 final)", tpmcRows, n)
	}
	for ty := range numTxnTypes {
		r := final[ty.String()]
		if r == nil {
			t.Errorf("no final row for %s", ty)
			continue
		}
		for col, want := range map[string]int64{"count_cum": res.Counts[ty], "errors_cum": res.Errors[ty], "retries_cum": res.Retries[ty]} {
			if r[col] != strconv.FormatInt(want, 10) {
				t.Errorf("%s final %s = %s, the run's total is %d", ty, col, r[col], want)
			}
		}
	}
}

// checkRampTicks: a run with a ramp of several ticks writes them as
// phase ramp, before rampEnd; the ramp's end resets the cumulative
// figures, so the first measured tick's count_cum is its own count.
func checkRampTicks(t *testing.T, jsonl string, rampEnd time.Time) {
	t.Helper()
	var ramp int
	first := map[string]txnLine{}
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var l txnLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "txn" {
			continue
		}
		switch l.Phase {
		case PhaseRamp:
			ramp++
			if l.Time.After(rampEnd) {
				t.Errorf("ramp tick at %s, after the ramp's end %s", l.Time, rampEnd)
			}
		case PhaseRun:
			if _, ok := first[l.Name]; !ok {
				first[l.Name] = l
			}
		}
	}
	if ramp == 0 {
		t.Error("no ramp tick in a ramp of four ticks")
	}
	for name, l := range first {
		if l.CountCum != l.Count {
			t.Errorf("%s: first measured tick has count_cum %d, count %d: the ramp was not reset", name, l.CountCum, l.Count)
		}
	}
	if len(first) != 5 {
		t.Errorf("first measured ticks of %d types", len(first))
	}
}
