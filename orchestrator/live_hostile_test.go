package orchestrator

import (
	"fmt"
	"strings"
	"testing"
)

// TestLiveTicksHostile: a host's live tail lines that no driver writes
// are skipped, so they cannot make the live figures absurd; an honest
// line beside them still counts.
func TestLiveTicksHostile(t *testing.T) {
	tick := func(counts string, elapsed int64, now string) string {
		return fmt.Sprintf(`{"Name":"newOrder","Hist":{"LowestTrackableValue":1,"HighestTrackableValue":100,"SignificantFigures":1,"Counts":[%s]},"Elapsed":%d,"Now":%q}`, counts, elapsed, now)
	}
	const now = "2026-12-03T09:00:00Z"
	honest := tick("10", 1e9, now) // 10 New-Orders in 1 s: 600 tpmC
	for _, tc := range []struct {
		name, line string
	}{
		{"bucket of 2^62", tick("4611686018427387904", 1e9, now)},
		{"a nanosecond's tick", tick("1", 1, now)},
		{"no time", tick("1", 1e9, "0001-01-01T00:00:00Z")},
		{"too many buckets", tick(strings.TrimSuffix(strings.Repeat("0,", maxLiveCounts+1), ","), 1e9, now)},
		{"a line longer than any tick", tick("1", 1e9, now) + strings.Repeat(" ", maxLiveLine)},
	} {
		lh := liveTicksOf("h", []byte(honest+"\n"+tc.line+"\n"))
		if lh.TpmC != 600 || lh.Window != 1 {
			t.Errorf("%s: live host %+v, want the honest tick alone (600 tpmC over 1 s)", tc.name, lh)
		}
	}
}
