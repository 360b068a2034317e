package histogram

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

type hdrHist = hdr.Histogram

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

func TestLayoutMatchesCockroach(t *testing.T) {
	h := NewHistogram()
	if n := len(Export(h).Counts); n != CountsLen {
		t.Fatalf("len(Counts) = %d, CockroachDB writes %d", n, CountsLen)
	}
	// Values beyond MaxLatency land in the bucket whose top CockroachDB
	// prints as pMax 103079.2 ms (seed 000, stockLevel row).
	got := NewRecorder(time.Unix(0, 0), "x")
	got.Op("x", time.Time{}).Record(10 * time.Minute)
	ivs := got.Tick(time.Unix(1, 0))
	if ms := Millis(ivs[0].Hist.ValueAtQuantile(100)); ms < 103079.1 || ms > 103079.3 {
		t.Errorf("clamped max = %.1f ms, want 103079.2", ms)
	}
}

// A line as CockroachDB's workload writes it (encoding/json of its
// histogram.SnapshotTick): we must read it and write it back byte for byte.
func TestCockroachLineRoundTrip(t *testing.T) {
	counts := make([]string, CountsLen)
	for i := range counts {
		counts[i] = "0"
	}
	counts[100] = "7"
	counts[150] = "3"
	line := `{"Name":"newOrder","Hist":{"LowestTrackableValue":100000,"HighestTrackableValue":100000000000,` +
		`"SignificantFigures":1,"Counts":[` + strings.Join(counts, ",") + `]},"Elapsed":1000234567,` +
		`"Now":"2020-11-05T12:34:56.789012345-05:00"}` + "\n"
	ticks, err := Decode(strings.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}
	if len(ticks) != 1 || ticks[0].Elapsed != 1000234567 || ticks[0].Name != NewOrder {
		t.Fatalf("decoded %+v", ticks)
	}
	h, err := ticks[0].Hist.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != 10 {
		t.Errorf("total = %d, want 10", h.TotalCount())
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(ticks[0]); err != nil {
		t.Fatal(err)
	}
	if buf.String() != line {
		t.Errorf("re-encoded line differs:\n got %s\nwant %s", buf.String(), line)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"not json", "{\n", "line 1"},
		{"no name", `{"Hist":{}}` + "\n", "line 1: tick without Name"},
		{"second line", `{"Name":"a","Hist":{"LowestTrackableValue":100000,"HighestTrackableValue":100000000000,"SignificantFigures":1,"Counts":[]},"Elapsed":1,"Now":"2020-01-01T00:00:00Z"}` + "\n\nnope\n", "line 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
	bad := Snapshot{LowestTrackableValue: 1, HighestTrackableValue: 1000, SignificantFigures: 3}
	if _, err := NewResult(1, []Tick{{Name: "x", Hist: bad}}); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("foreign layout accepted: %v", err)
	}
}

func TestRecorderTickAndReset(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := NewRecorder(t0, TPCCNames()...)
	no := r.Op(NewOrder, t0)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				no.Record(time.Duration(g*1000+i) * time.Millisecond)
			}
		}()
	}
	// Tick concurrently with recording: nothing may be lost or counted twice.
	var delta int64
	for range 10 {
		for _, iv := range r.Tick(t0.Add(time.Second)) {
			if iv.Name == NewOrder {
				delta += iv.Hist.TotalCount()
			}
		}
	}
	wg.Wait()
	ivs := r.Tick(t0.Add(2 * time.Second))
	if len(ivs) != 5 {
		t.Fatalf("%d intervals, want all 5 names", len(ivs))
	}
	if got := []string{ivs[0].Name, ivs[1].Name, ivs[4].Name}; got[0] != Delivery || got[1] != NewOrder || got[2] != StockLevel {
		t.Errorf("intervals not sorted by name: %v", got)
	}
	if ivs[1].Name != NewOrder {
		t.Fatal("unexpected order")
	}
	delta += ivs[1].Hist.TotalCount()
	if delta != 4000 || ivs[1].Cumulative.TotalCount() != 4000 {
		t.Errorf("deltas sum to %d, cumulative %d, want 4000", delta, ivs[1].Cumulative.TotalCount())
	}
	if ivs[1].Elapsed != time.Second {
		t.Errorf("elapsed = %v, want 1s since previous tick", ivs[1].Elapsed)
	}
	r.Reset(t0.Add(3 * time.Second))
	no.Record(time.Millisecond)
	ivs = r.Tick(t0.Add(5 * time.Second))
	if c := ivs[1].Cumulative.TotalCount(); c != 1 || ivs[1].Elapsed != 2*time.Second {
		t.Errorf("after reset: cumulative %d elapsed %v, want 1 and 2s", c, ivs[1].Elapsed)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p90      map[string]time.Duration
		newOrder int64
		want     string // substring of the failure, "" = pass
	}{
		{"pass", map[string]time.Duration{NewOrder: time.Second, StockLevel: 15 * time.Second}, 120, ""},
		{"stock level under its 20s limit", map[string]time.Duration{StockLevel: 19 * time.Second}, 120, ""},
		{"low efficiency", nil, 100, "efficiency"},
		{"new order too slow", map[string]time.Duration{NewOrder: 6 * time.Second}, 120, "newOrder p90"},
		{"stock level too slow", map[string]time.Duration{StockLevel: 30 * time.Second}, 120, "stockLevel p90"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Warehouses: 10, Elapsed: time.Minute, Cumulative: map[string]*hdrHist{}}
			no := NewHistogram()
			for i := int64(0); i < tc.newOrder; i++ {
				_ = no.RecordValue(int64(10 * time.Millisecond))
			}
			r.Cumulative[NewOrder] = no
			for name, p90 := range tc.p90 {
				h, ok := r.Cumulative[name]
				if !ok {
					h = NewHistogram()
					r.Cumulative[name] = h
				}
				h.Reset()
				_ = h.RecordValues(int64(p90), tc.newOrder)
			}
			err := r.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected failure: %v", err)
				}
				return
			}
			var ce *CheckError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a CheckError about %q", err, tc.want)
			}
		})
	}
}
