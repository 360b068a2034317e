package result_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/jsonschema"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestMergeIncomplete: a host whose measured run died is named in the
// merge with its reason and coverage, the merge fails and is written as
// benchrig.result/v2 (a v1 reader refuses it); its histogram may end in
// a cut line or be missing. Without a died record the merge stays strict.
func TestMergeIncomplete(t *testing.T) {
	for _, tc := range []struct {
		name string
		// cut keeps this many bytes of host 2's histogram (-1: all;
		// -2: no file at all); died writes its record.
		cut     int
		died    bool
		wantErr string
		// refused: host 2's malformed file is left out of the merge, for
		// this reason.
		refused string
		// covered is host 2's covered percent; truncated its flag.
		covered   float64
		truncated bool
	}{
		{name: "complete", cut: -1},
		{name: "died at the end", cut: -1, died: true, covered: 100},
		{name: "died mid-line", cut: 30*secLen(t) + 100, died: true, covered: 50, truncated: true},
		{name: "died on a line end", cut: 30 * secLen(t), died: true, covered: 50},
		{name: "died before its first tick", cut: -2, died: true, covered: 0},
		{name: "cut without a record", cut: 30*secLen(t) + 100, refused: "line 151"},
		{name: "record, malformed line inside", cut: 0, died: true, refused: "line 1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "load2"), 0o755); err != nil {
				t.Fatal(err)
			}
			// Two hosts of the same rate, each with its own directory.
			a, b2 := writeHostFiles(t, dir, 0), writeHostFiles(t, filepath.Join(dir, "load2"), 0)
			data := mustRead(t, b2)
			os.Remove(b2)
			switch {
			case tc.cut == 0:
				data = append([]byte("{not json\n"), data...)
			case tc.cut > 0:
				data = data[:tc.cut]
			}
			if tc.cut != -2 {
				if err := os.WriteFile(b2, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.died {
				d := result.Died{Header: envelope.New(result.KindDied), Host: "load2", Stage: "run", Step: "run TPC-C", Job: "run.x", Reason: "killed (SIGKILL)", WindowSeconds: 60}
				if err := envelope.WriteFile(result.DiedFileFor(b2), d); err != nil {
					t.Fatal(err)
				}
				checkSchema(t, mustRead(t, result.DiedFileFor(b2)))
			}
			r, _, err := result.MergeFiles(20, a, b2)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.refused != "" {
				if len(r.Incomplete) != 1 || !r.Incomplete[0].Refused || r.Incomplete[0].Host != "load2" ||
					!strings.Contains(r.Incomplete[0].Reason, tc.refused) || r.Pass || r.Schema != envelope.SchemaV2 || len(r.Files) != 1 {
					t.Errorf("incomplete %+v, files %v: want load2 refused for %q, left out", r.Incomplete, r.Files, tc.refused)
				}
				return
			}
			doc, err := envelope.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, doc)
			if !tc.died {
				if len(r.Incomplete) != 0 || r.Schema != envelope.Schema {
					t.Errorf("a complete merge: incomplete %+v, schema %s", r.Incomplete, r.Schema)
				}
				return
			}
			if len(r.Incomplete) != 1 {
				t.Fatalf("incomplete %+v, want host load2", r.Incomplete)
			}
			h := r.Incomplete[0]
			if h.Host != "load2" || h.Reason != "killed (SIGKILL)" || h.File != b2 || h.WindowSeconds != 60 ||
				h.CoveredPercent < tc.covered-0.01 || h.CoveredPercent > tc.covered+0.01 || h.Truncated != tc.truncated {
				t.Errorf("incomplete %+v, want load2 killed, %.2f%% of the 60 s window, truncated %v", h, tc.covered, tc.truncated)
			}
			if r.Schema != envelope.SchemaV2 || r.Pass || len(r.Failures) == 0 || !strings.HasPrefix(r.Failures[0], "incomplete: load2 killed (SIGKILL), covered ") {
				t.Errorf("schema %s, pass %v, failures %q: want v2, failing with the host first", r.Schema, r.Pass, r.Failures)
			}
			// A v1 reader refuses it.
			v1, err := jsonschema.Load(schemaDir + "/result.v1.json")
			if err != nil {
				t.Fatal(err)
			}
			if errs := v1.Validate(doc); len(errs) == 0 {
				t.Error("result.v1.json accepts an incomplete merge")
			}
		})
	}
}

// secLen is the length of one second of writeHostFiles' ndjson: its
// first five lines, one per transaction type (every second is as long).
func secLen(t *testing.T) int {
	t.Helper()
	data := string(mustRead(t, writeHostFiles(t, t.TempDir(), 0)))
	n := 0
	for range 5 {
		i := strings.Index(data[n:], "\n")
		n += i + 1
	}
	return n
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDiedFileFor(t *testing.T) {
	for in, want := range map[string]string{
		"results/load1/workload1.histogram.ndjson": "results/load1/workload1.died.json",
		"workload2.workers-40.r2.histogram.ndjson": "workload2.workers-40.r2.died.json",
		"/tmp/h.ndjson": "/tmp/h.ndjson.died.json",
	} {
		if got := result.DiedFileFor(in); got != want {
			t.Errorf("DiedFileFor(%q) = %q, want %q", in, got, want)
		}
	}
}
