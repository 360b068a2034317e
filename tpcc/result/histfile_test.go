package result

import "testing"

// TestHistogramSiblings: the files that belong with a histogram file are
// named from its stem whichever suffix the release asks for (v24.3's
// workload requires .json), so collect, merge and the report find them.
func TestHistogramSiblings(t *testing.T) {
	for _, tc := range []struct{ hist, result, ticks, died string }{
		{"workload1.histogram.ndjson", "workload1.result.json", "workload1.ticks.jsonl", "workload1.died.json"},
		{"workload1.histogram.json", "workload1.result.json", "workload1.ticks.jsonl", "workload1.died.json"},
		{"workload1.r2.histogram.json", "workload1.r2.result.json", "workload1.r2.ticks.jsonl", "workload1.r2.died.json"},
		{"h.out", "h.out.result.json", "h.out.ticks.jsonl", "h.out.died.json"},
	} {
		if got := ResultFileFor(tc.hist); got != tc.result {
			t.Errorf("ResultFileFor(%s) = %s, want %s", tc.hist, got, tc.result)
		}
		if got := TicksFileFor(tc.hist); got != tc.ticks {
			t.Errorf("TicksFileFor(%s) = %s, want %s", tc.hist, got, tc.ticks)
		}
		if got := DiedFileFor(tc.hist); got != tc.died {
			t.Errorf("DiedFileFor(%s) = %s, want %s", tc.hist, got, tc.died)
		}
	}
}
