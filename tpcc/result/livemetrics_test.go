package result_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	om "github.com/benchrig/benchrig/internal/openmetrics"
	"github.com/benchrig/benchrig/internal/openmetrics/omlint"
	"github.com/benchrig/benchrig/tpcc/result"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

func exposition(t *testing.T, ts result.TickStats, have bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := om.Write(&b, result.LiveFamilies(ts, have)); err != nil {
		t.Fatal(err)
	}
	for _, p := range omlint.Lint(b.String()) {
		t.Error(p)
	}
	return b.String()
}

// TestLiveMetricsGolden: every tick of FixedTicks (ramp, run, final)
// exposed as OpenMetrics passes the format's rules; the last run tick is
// pinned by a golden.
func TestLiveMetricsGolden(t *testing.T) {
	ticks := resulttest.FixedTicks(t)
	if got := exposition(t, result.TickStats{}, false); got != "# TYPE benchrig_tpcc_measuring gauge\n# HELP benchrig_tpcc_measuring 1 once the ramp-up is over and the figures count towards the result, 0 during the ramp-up or before the first tick.\nbenchrig_tpcc_measuring 0\n# EOF\n" {
		t.Errorf("before the first tick:\n%s", got)
	}
	for i, ts := range ticks {
		got := exposition(t, ts, true)
		wantMeasuring := "benchrig_tpcc_measuring 1\n"
		if ts.Phase == result.PhaseRamp {
			wantMeasuring = "benchrig_tpcc_measuring 0\n"
		}
		if !strings.Contains(got, wantMeasuring) {
			t.Errorf("tick %d (%s) lacks %q", i, ts.Phase, wantMeasuring)
		}
	}
	golden(t, "live.om", exposition(t, ticks[len(ticks)-2], true))
}

// TestLiveMetricsBuckets: a value lands in the first bucket at or above
// it, never below; the +Inf bucket and _count are the histogram's total.
func TestLiveMetricsBuckets(t *testing.T) {
	ticks := resulttest.FixedTicks(t)
	h := ticks[0].Txns[0].Cumulative.Clone()
	h.Reset()
	for _, d := range []time.Duration{800 * time.Microsecond, 3 * time.Millisecond, 30 * time.Millisecond, 4 * time.Second, 6 * time.Second} {
		if err := h.RecordValue(int64(d)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]float64{}
	for _, s := range result.LatencySamples([][2]string{{"txn", "x"}}, result.TxnTick{Cumulative: h}) {
		key := s.Suffix
		for _, l := range s.Labels {
			if l[0] == "le" {
				key += "/" + l[1]
			}
		}
		got[key] = s.Value
	}
	for k, want := range map[string]float64{
		"_bucket/0.001": 1, "_bucket/0.002": 1, "_bucket/0.005": 2, "_bucket/0.05": 3,
		"_bucket/2": 3, "_bucket/5": 4, "_bucket/10": 5, "_bucket/+Inf": 5, "_count": 5,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v", k, got[k], want)
		}
	}
	if s := got["_sum"]; s < 10.03 || s > 10.04 {
		t.Errorf("_sum = %v s, want about 10.0338", s)
	}
}
