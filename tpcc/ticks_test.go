package tpcc

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

// TestTicksMatchConsole: the figures of the console's lines and the files'
// rows are the same numbers, tick by tick.
func TestTicksMatchConsole(t *testing.T) {
	ticks := resulttest.FixedTicks(t)
	jl := strings.Split(strings.TrimSpace(resulttest.WriteTicks(t, result.TicksJSONLines, ticks)), "\n")
	var i int
	for _, ts := range ticks {
		var b bytes.Buffer
		newReporter(&b).progress(ts)
		for _, x := range ts.Txns {
			var l result.TxnLine
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
			var l result.TpmCLine
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
	newReporter(&b).progress(result.TickStats{Elapsed: time.Duration(el * float64(time.Second)), Txns: []result.TxnTick{{
		Name: name, ErrorsCum: errs, OpsPerSec: ops, OpsPerSecCum: cum, P50: p50, P95: p95, P99: p99, Max: pmax}}})
	return strings.Split(b.String(), "\n")[1]
}

func fmtTpmC(f float64) string { return strings.TrimSpace(strings.Split(consoleTpmC(f), " ")[0]) }

func consoleTpmC(f float64) string {
	var b bytes.Buffer
	newReporter(&b).progress(result.TickStats{HasTpmC: true, TpmC: f})
	_, after, _ := strings.Cut(b.String(), "tpmC ")
	return after
}

// checkRunTicks judges a real run's --ticks file: it matches the schema
// (JSON lines) or the header (CSV), has run and final ticks, one
// tpmC row per console tpmC line plus the final one, and its final
// cumulative figures are the run's totals.
func checkRunTicks(t *testing.T, format result.TickFormat, file, console string, res *RunResult) {
	t.Helper()
	var rows []map[string]string
	if format == result.TicksJSONLines {
		s, err := jsonschema.Load("../docs/schema/ticks.v1.json")
		if err != nil {
			t.Fatal(err)
		}
		resulttest.ValidateTicks(t, s, file)
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
		if len(recs) < 2 || strings.Join(recs[0], ",") != strings.Join(result.TicksColumns(), ",") {
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
	first := map[string]result.TxnLine{}
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var l result.TxnLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind != "txn" {
			continue
		}
		switch l.Phase {
		case result.PhaseRamp:
			ramp++
			if l.Time.After(rampEnd) {
				t.Errorf("ramp tick at %s, after the ramp's end %s", l.Time, rampEnd)
			}
		case result.PhaseRun:
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
