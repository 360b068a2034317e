package resulttest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// WriteHostFiles writes host k's histogram file into dir: for 60 s, 1+k
// New-Orders of 20 ms and as many Payments of 5 ms per second. It
// returns the file's path, dir/workload<k+1>.histogram.ndjson.
func WriteHostFiles(t testing.TB, dir string, k int) string {
	t.Helper()
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	enc := histogram.NewEncoder(&b)
	for s := 1; s <= 60; s++ {
		for _, op := range histogram.TPCCNames() {
			h := histogram.NewHistogram()
			switch op {
			case histogram.NewOrder:
				_ = h.RecordValues(int64(20*time.Millisecond), int64(1+k))
			case histogram.Payment:
				_ = h.RecordValues(int64(5*time.Millisecond), int64(1+k))
			}
			if err := enc.Encode(histogram.Tick{Name: op, Hist: histogram.Export(h), Elapsed: time.Second, Now: t0.Add(time.Duration(s) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, "workload"+string(rune('1'+k))+".histogram.ndjson")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FixedTicks are five one-second ticks with New-Order and Payment
// latencies, errors and retries; the first two are the ramp (one second
// each) whose end resets the counters, as tpcc's Run does.
func FixedTicks(t testing.TB) []result.TickStats {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rec := histogram.NewRecorder(t0, histogram.TPCCNames()...)
	no := rec.Op(histogram.NewOrder, t0)
	pay := rec.Op(histogram.Payment, t0)
	var tb result.TickBuilder
	cur := result.TickCounts{Errors: map[string]int64{}, Retries: map[string]int64{}}
	var out []result.TickStats
	measureStart := t0
	for s := 1; s <= 5; s++ {
		for i := range 10 * s {
			no.Record(time.Duration(i+1) * time.Millisecond)
			pay.Record(time.Duration(i+1) * 500 * time.Microsecond)
		}
		cur.Errors[histogram.Payment] += int64(s - 1)
		cur.Retries[histogram.NewOrder] += int64(2 * s)
		now := t0.Add(time.Duration(s) * time.Second)
		phase := result.PhaseRun
		if s <= 2 {
			phase = result.PhaseRamp
		}
		out = append(out, tb.Build(now, now.Sub(measureStart), phase, rec.Tick(now), cur))
		if s == 2 { // the ramp's end
			measureStart = now
			rec.Reset(now)
			cur = result.TickCounts{Errors: map[string]int64{}, Retries: map[string]int64{}}
			tb.Reset()
		}
	}
	// The final partial tick, a quarter second after the last.
	no.Record(3 * time.Millisecond)
	now := t0.Add(5250 * time.Millisecond)
	out = append(out, tb.Build(now, now.Sub(measureStart), result.PhaseFinal, rec.Tick(now), cur))
	return out
}

// WriteTicks is ticks as a --ticks file of format f writes them.
func WriteTicks(t testing.TB, f result.TickFormat, ticks []result.TickStats) string {
	t.Helper()
	var b bytes.Buffer
	tw := result.NewTickWriter(&b, f)
	for _, ts := range ticks {
		if err := tw.Write(ts); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// CheckSchema validates a result document against the documented schema
// in schemaDir (docs/schema, relative to the calling test's package):
// result.v1.json, or result.v2.json for a v2 document.
func CheckSchema(t testing.TB, schemaDir string, doc []byte) {
	t.Helper()
	file := filepath.Join(schemaDir, "result.v1.json")
	if bytes.Contains(doc, []byte(`"schema": "`+envelope.SchemaV2+`"`)) {
		file = filepath.Join(schemaDir, "result.v2.json")
	}
	s, err := jsonschema.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		t.Errorf("result does not match %s:\n%s", file, strings.Join(errs, "\n"))
	}
}

// ValidateTicks checks every line of a --ticks JSON lines file against s
// (docs/schema/ticks.v1.json), and that there is one.
func ValidateTicks(t testing.TB, s *jsonschema.Schema, jsonl string) {
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
