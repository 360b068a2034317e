package result_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/tpcc/result"
)

// TestMergeRefusesMalformedHost: one host's files are hostile in each
// way a strict reader must catch; the merge leaves that host out, names
// it (refused, with the reason), and merges the other host as before.
func TestMergeRefusesMalformedHost(t *testing.T) {
	good := string(mustRead(t, writeHostFiles(t, t.TempDir(), 0)))
	firstLine := good[:strings.Index(good, "\n")+1]
	for _, tc := range []struct {
		name, data, why string
		record          string // a refusal record left by collect
		runResult       string // host 2's run result file
	}{
		{name: "another file's content", data: `{"schema":"benchrig.result/v1","kind":"tpcc.run","tpmc":1e9}` + "\n", why: "unknown field"},
		{name: "negative count", data: strings.Replace(firstLine, "[0,", "[-5,", 1), why: "bucket count -5"},
		{name: "duplicate tick", data: good + firstLine, why: "not after the previous one"},
		{name: "markup name", data: strings.Replace(good, `"newOrder"`, `"<script>x</script>"`, 1), why: "only letters"},
		{name: "negative elapsed", data: strings.Replace(firstLine, `"Elapsed":1000000000`, `"Elapsed":-1`, 1), why: "elapsed -1ns"},
		{name: "time of no run", data: strings.Replace(firstLine, `"2026-`, `"1970-`, 1), why: "is not a run time"},
		{name: "two values on a line", data: strings.TrimSuffix(firstLine, "\n") + "{}\n", why: "more than one JSON value"},
		{name: "collect refused it", data: good, record: "a FIFO", why: "a FIFO"},
		{name: "absurd run result", data: good, runResult: `{"schema":"benchrig.result/v1","kind":"tpcc.run","transactions":[{"name":"newOrder","errors":-3}]}`, why: "counter -3"},
		{name: "a load profile of none", data: good, runResult: `{"schema":"benchrig.result/v1","kind":"tpcc.run","profile":"pipelined <img src=x onerror=alert(1)>"}`, why: "not a load profile"},
		{name: "run result of another kind", data: good, runResult: `{"schema":"benchrig.result/v1","kind":"tpcc.merge"}`, why: "tpcc.merge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "load1"), 0o755)
			os.MkdirAll(filepath.Join(dir, "load2"), 0o755)
			a := writeHostFiles(t, filepath.Join(dir, "load1"), 0)
			b := filepath.Join(dir, "load2", "workload2.histogram.ndjson")
			if err := os.WriteFile(b, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.record != "" {
				result.WriteRefused(b, tc.record)
			}
			if tc.runResult != "" {
				os.WriteFile(result.ResultFileFor(b), []byte(tc.runResult), 0o644)
			}
			alone, _, err := result.MergeFiles(10, a)
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := result.MergeFiles(20, a, b)
			if err != nil {
				t.Fatalf("one host's garbage failed the merge: %v", err)
			}
			if len(r.Incomplete) != 1 || !r.Incomplete[0].Refused || r.Incomplete[0].Host != "load2" || !strings.Contains(r.Incomplete[0].Reason, tc.why) {
				t.Fatalf("incomplete %+v: want load2 refused for %q", r.Incomplete, tc.why)
			}
			if r.Pass || len(r.Files) != 1 || r.Files[0] != a || r.Transactions[0].Count != alone.Transactions[0].Count {
				t.Errorf("pass %v, files %v, %d new orders (alone %d): want load1's figures alone, failing", r.Pass, r.Files, r.Transactions[0].Count, alone.Transactions[0].Count)
			}
			// Every host refused: an error naming them, no merge.
			_, _, err = result.MergeFiles(10, b)
			var re *result.RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), "load2") {
				t.Errorf("only the refused host: %v", err)
			}
		})
	}
}
