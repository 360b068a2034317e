package result_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// TestMergeRefusesTickOutsideWindow: one tiny New-Order tick far outside
// a host's run (the issue's: 200 days after its last) refuses that host's
// file as malformed; the other host is merged alone and the merged series
// keeps one point per second of its window, not of 200 days. Without
// checkWindow the merge took it (a series of 17 million points).
func TestMergeRefusesTickOutsideWindow(t *testing.T) {
	const window = 60 * time.Second // resulttest's hosts tick for 60 s
	tick := func(now time.Time) string {
		h := histogram.NewHistogram()
		_ = h.RecordValue(int64(time.Millisecond))
		var b bytes.Buffer
		if err := histogram.NewEncoder(&b).Encode(histogram.Tick{Name: histogram.NewOrder, Hist: histogram.Export(h), Elapsed: time.Second, Now: now}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) // resulttest's start
	for _, tc := range []struct {
		name, why   string
		window      time.Duration
		pre, post   string
		refusedHost bool
	}{
		{name: "200 days after its last", window: window, post: tick(t0.Add(61*time.Second + 200*24*time.Hour)), why: "ticks spanning", refusedHost: true},
		{name: "200 days before its first", window: window, pre: tick(t0.Add(-200 * 24 * time.Hour)), why: "ticks spanning", refusedHost: true},
		{name: "after this machine's clock", post: tick(time.Now().Add(200 * 24 * time.Hour)), why: "after the clock of this machine", refusedHost: true},
		{name: "within the slack", window: window, post: tick(t0.Add(61*time.Second + result.WindowSlack/2))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, h := range []string{"load1", "load2"} {
				os.MkdirAll(filepath.Join(dir, h), 0o755)
			}
			a := writeHostFiles(t, filepath.Join(dir, "load1"), 0)
			b := writeHostFiles(t, filepath.Join(dir, "load2"), 1)
			honest := mustRead(t, b)
			if err := os.WriteFile(b, []byte(tc.pre+string(honest)+tc.post), 0o644); err != nil {
				t.Fatal(err)
			}
			r, _, err := result.MergeFilesWithin(20, tc.window, a, b)
			if err != nil {
				t.Fatal(err)
			}
			if max := int((window + result.WindowSlack).Seconds()) + 1; len(r.Series) > max {
				t.Errorf("merged series of %d points, more than the window's %d", len(r.Series), max)
			}
			if !tc.refusedHost {
				if len(r.Incomplete) != 0 || len(r.Files) != 2 {
					t.Errorf("a tick within the slack refused the host: %+v", r.Incomplete)
				}
				return
			}
			if len(r.Incomplete) != 1 || !r.Incomplete[0].Refused || r.Incomplete[0].Host != "load2" || !strings.Contains(r.Incomplete[0].Reason, tc.why) {
				t.Fatalf("incomplete %+v: want load2 refused for %q", r.Incomplete, tc.why)
			}
			if len(r.Files) != 1 || r.Files[0] != a {
				t.Errorf("merged files %v, want load1's alone", r.Files)
			}
		})
	}
}
