package result

import (
	"fmt"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
)

// A host's ticks are judged against the run's window before they are
// merged, so that no host can stretch the merged series, the report or
// a plot beyond what the plan's ramp and duration allow.

// WindowSlack is how far a host's ticks may reach beyond the planned
// window: the last tick is written once the duration has passed (up to a
// tick's interval late), and the hosts' clocks differ from this machine's
// by up to preflight's max_clock_offset (a second by default). Ten
// seconds covers both with room; a tick farther out is not of this run.
const WindowSlack = 10 * time.Second

// checkWindow refuses a host's ticks that cannot all belong to one run of
// the window: spanning more than the window and WindowSlack (from the
// earliest tick's start to the latest tick), or dated after now and the
// slack.
func checkWindow(ticks []histogram.Tick, window time.Duration, now time.Time) error {
	var first, last time.Time
	for _, t := range ticks {
		if begin := t.Now.Add(-t.Elapsed); first.IsZero() || begin.Before(first) {
			first = begin
		}
		if t.Now.After(last) {
			last = t.Now
		}
	}
	if first.IsZero() {
		return nil
	}
	if span := last.Sub(first); window > 0 && span > window+WindowSlack {
		return fmt.Errorf("ticks spanning %s, more than the window of %s and %s", span.Round(time.Second), window, WindowSlack)
	}
	if last.After(now.Add(WindowSlack)) {
		return fmt.Errorf("a tick at %s, after the clock of this machine (%s)", last.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

// series is tpmC per second: New-Order ticks of every host binned by the
// second (since the earliest tick began) they end in; with a window,
// seconds past the window and WindowSlack are not kept (checkWindow has
// refused a host whose ticks reach them).
func series(newOrders []histogram.Tick, window time.Duration) []SeriesPoint {
	var start time.Time
	for _, t := range newOrders {
		if begin := t.Now.Add(-t.Elapsed); start.IsZero() || begin.Before(start) {
			start = begin
		}
	}
	if start.IsZero() {
		return nil
	}
	bins := map[int64]int64{}
	var last int64
	for _, t := range newOrders {
		h, err := t.Hist.Histogram()
		if err != nil {
			continue // NewResult has already refused such a file
		}
		sec := int64(t.Now.Sub(start).Seconds())
		if window > 0 && sec > int64((window+WindowSlack).Seconds()) {
			continue
		}
		bins[sec] += h.TotalCount()
		last = max(last, sec)
	}
	out := make([]SeriesPoint, 0, last)
	for s := int64(1); s <= last; s++ {
		out = append(out, SeriesPoint{Second: float64(s), TpmC: float64(bins[s]) * 60})
	}
	return out
}
