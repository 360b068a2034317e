package histogram

import (
	"bytes"
	"testing"
	"time"
)

// TestMaxLatency: --histograms-max-latency raises the highest trackable
// value; such ticks decode, and merge with default ones without losing
// the long latencies.
func TestMaxLatency(t *testing.T) {
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	long := NewRecorderMax(start, 200*time.Second, "newOrder")
	long.Op("newOrder", start).Record(150 * time.Second)
	long.Op("newOrder", start).Record(300 * time.Second) // clamped to 200s
	std := NewRecorder(start, "newOrder")
	std.Op("newOrder", start).Record(150 * time.Second) // clamped to 100s
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for i, r := range []*Recorder{long, std} {
		// One second apart: a name's ticks must follow each other (Decode).
		for _, iv := range r.Tick(start.Add(time.Duration(i+1) * time.Second)) {
			if err := enc.Encode(iv.Tick()); err != nil {
				t.Fatal(err)
			}
		}
	}
	ticks, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if ticks[0].Hist.HighestTrackableValue != (200 * time.Second).Nanoseconds() {
		t.Fatalf("highest %d", ticks[0].Hist.HighestTrackableValue)
	}
	res, err := NewResult(1, ticks)
	if err != nil {
		t.Fatal(err)
	}
	h := res.Cumulative["newOrder"]
	if h.TotalCount() != 3 {
		t.Errorf("%d values merged, want 3", h.TotalCount())
	}
	if max := time.Duration(h.Max()); max < 190*time.Second {
		t.Errorf("max %s: the 200s-clamped value was lost", max)
	}
	bad := ticks[0].Hist
	bad.HighestTrackableValue = 2 * time.Hour.Nanoseconds()
	if _, err := bad.Histogram(); err == nil {
		t.Error("a 2h layout accepted")
	}
}
