package result_test

import (
	"encoding/csv"
	"errors"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

func TestTicksGolden(t *testing.T) {
	ticks := resulttest.FixedTicks(t)
	golden(t, "ticks.jsonl", resulttest.WriteTicks(t, result.TicksJSONLines, ticks))
	golden(t, "ticks.csv", resulttest.WriteTicks(t, result.TicksCSV, ticks))
}

// TestTicksSchema: every JSON line matches docs/schema/ticks.v1.json, and
// the schema rejects what v1 does not allow.
func TestTicksSchema(t *testing.T) {
	s, err := jsonschema.Load(schemaDir + "/ticks.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	resulttest.ValidateTicks(t, s, resulttest.WriteTicks(t, result.TicksJSONLines, resulttest.FixedTicks(t)))
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

// TestTicksCSVShape: a header, then rows of the header's width, which
// encoding/csv reads back.
func TestTicksCSVShape(t *testing.T) {
	rows, err := csv.NewReader(strings.NewReader(resulttest.WriteTicks(t, result.TicksCSV, resulttest.FixedTicks(t)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(result.TicksColumns(), ",") {
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
		want result.TickFormat
		ok   bool
	}{
		{"w1.ticks.jsonl", result.TicksJSONLines, true},
		{"W1.NDJSON", result.TicksJSONLines, true},
		{"/tmp/t.csv", result.TicksCSV, true},
		{"ticks.json", 0, false},
		{"ticks", 0, false},
	} {
		got, err := result.TickFormatOf(tc.name)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("TickFormatOf(%q) = %v, %v", tc.name, got, err)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestTickWriterError: a write error reaches the caller (tpcc's Run stops on it).
func TestTickWriterError(t *testing.T) {
	for _, f := range []result.TickFormat{result.TicksJSONLines, result.TicksCSV} {
		if err := result.NewTickWriter(failWriter{}, f).Write(resulttest.FixedTicks(t)[0]); err == nil {
			t.Errorf("format %d: no error from a failing writer", f)
		}
	}
}
