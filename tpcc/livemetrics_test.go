package tpcc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	om "github.com/benchrig/benchrig/internal/openmetrics"
	"github.com/benchrig/benchrig/internal/openmetrics/omlint"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

func exposition(t *testing.T, ts TickStats, have bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := om.Write(&b, liveFamilies(ts, have)); err != nil {
		t.Fatal(err)
	}
	for _, p := range omlint.Lint(b.String()) {
		t.Error(p)
	}
	return b.String()
}

// TestLiveMetricsGolden: every tick of fixedTicks (ramp, run, final)
// exposed as OpenMetrics passes the format's rules; the last run tick is
// pinned by a golden.
func TestLiveMetricsGolden(t *testing.T) {
	ticks := fixedTicks(t)
	if got := exposition(t, TickStats{}, false); got != "# TYPE benchrig_tpcc_measuring gauge\n# HELP benchrig_tpcc_measuring 1 once the ramp-up is over and the figures count towards the result, 0 during the ramp-up or before the first tick.\nbenchrig_tpcc_measuring 0\n# EOF\n" {
		t.Errorf("before the first tick:\n%s", got)
	}
	for i, ts := range ticks {
		got := exposition(t, ts, true)
		wantMeasuring := "benchrig_tpcc_measuring 1\n"
		if ts.Phase == PhaseRamp {
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
	ticks := fixedTicks(t)
	h := ticks[0].Txns[0].Cumulative.Clone()
	h.Reset()
	for _, d := range []time.Duration{800 * time.Microsecond, 3 * time.Millisecond, 30 * time.Millisecond, 4 * time.Second, 6 * time.Second} {
		if err := h.RecordValue(int64(d)); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]float64{}
	for _, s := range latencySamples([][2]string{{"txn", "x"}}, TxnTick{Cumulative: h}) {
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

var sampleLine = regexp.MustCompile(`(?m)^benchrig_tpcc_transactions_total\{txn="newOrder"\} (\S+)$`)

// TestLiveMetricsServedDuringRun runs a short no-wait run on a real
// PostgreSQL with --prometheus-port's server on loopback, scrapes it over
// HTTP while the run goes and after its last tick, and requires the last
// scrape's New-Order count to be the run's own.
func TestLiveMetricsServedDuringRun(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := loadOneWarehouse(t, pgtest.NoSync())
	live := &LiveMetrics{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := ServeLiveMetrics(ctx, "127.0.0.1:0", live)
	if err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		t.Helper()
		resp, err := http.Get("http://" + addr.String() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != om.ContentType {
			t.Errorf("Content-Type %q", ct)
		}
		b, _ := io.ReadAll(resp.Body)
		for _, p := range omlint.Lint(string(b)) {
			t.Error(p)
		}
		return string(b)
	}
	cfg := RunConfig{URLs: []string{url}, Warehouses: 1, Seed: 7, Workers: 2, Duration: 4 * time.Second, Ramp: time.Second, DisplayEvery: 500 * time.Millisecond, Ticks: live, Out: io.Discard}
	mid := make(chan string, 1)
	go func() {
		time.Sleep(3 * time.Second)
		mid <- scrape()
	}()
	res, err := Run(ctx, cfg)
	if err != nil {
		var ae *AuditError
		if !errors.As(err, &ae) {
			t.Fatalf("run: %v", err)
		}
	}
	if m := <-mid; !strings.Contains(m, "benchrig_tpcc_latency_seconds_bucket{txn=\"newOrder\",le=\"+Inf\"}") {
		t.Errorf("mid-run scrape has no New-Order histogram:\n%s", m)
	}
	final := scrape()
	m := sampleLine.FindStringSubmatch(final)
	if m == nil {
		t.Fatalf("no New-Order count in the last scrape:\n%s", final)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	if int64(n) != res.Counts[NewOrderTxn] || n == 0 {
		t.Errorf("scraped %v New-Orders, the run counted %d", n, res.Counts[NewOrderTxn])
	}
}
