package result

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	om "github.com/benchrig/benchrig/internal/openmetrics"
)

// LatencyBuckets are the upper bounds, in seconds, of the live latency
// histograms' buckets. They include TPC-C's response-time limits (5 s for
// the interactive transactions, 20 s for Stock-Level, clause 5.2.5.4) so
// that a dashboard can show the share within each limit exactly.
var LatencyBuckets = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}

// LiveMetrics is the TickSink behind `tpcc run --prometheus-port`: it
// keeps the latest tick and serves it, on each scrape, in the OpenMetrics
// text format: per transaction type the completed, failed and retried
// counts and a latency histogram, plus tpmC and the run's phase. Counts
// are those of the console's periodic lines: cumulative since the
// measurement started, so they restart at the ramp's end (CockroachDB's
// rule); every counter's _created sample says when, which is how
// Prometheus tells a restart from a fall.
type LiveMetrics struct {
	mu   sync.Mutex
	last TickStats
	have bool
}

// Write keeps ts for the next scrape.
func (m *LiveMetrics) Write(ts TickStats) error {
	m.mu.Lock()
	m.last, m.have = ts, true
	m.mu.Unlock()
	return nil
}

// ServeHTTP writes the latest tick's families.
func (m *LiveMetrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	m.mu.Lock()
	ts, have := m.last, m.have
	m.mu.Unlock()
	w.Header().Set("Content-Type", om.ContentType)
	_ = om.Write(w, liveFamilies(ts, have))
}

// liveFamilies are the families of one tick; before the first tick only
// the phase is known (starting).
func liveFamilies(ts TickStats, have bool) []om.Family {
	measuring := om.Family{Name: "benchrig_tpcc_measuring", Type: "gauge", Help: "1 once the ramp-up is over and the figures count towards the result, 0 during the ramp-up or before the first tick."}
	if !have {
		measuring.Samples = []om.Sample{{Value: 0}}
		return []om.Family{measuring}
	}
	measuring.Samples = []om.Sample{{Value: b2f(ts.Phase != PhaseRamp)}}
	elapsed := om.Family{Name: "benchrig_tpcc_elapsed_seconds", Type: "gauge", Unit: "seconds", Help: "Time since the measurement started (since the run started, during the ramp-up).", Samples: []om.Sample{{Value: ts.Elapsed.Seconds()}}}
	tpmc := om.Family{Name: "benchrig_tpcc_tpmc", Type: "gauge", Help: "New-Order transactions per minute: over the last tick (window=\"tick\") and since the measurement started (window=\"cumulative\")."}
	if ts.HasTpmC {
		tpmc.Samples = []om.Sample{
			{Labels: [][2]string{{"window", "tick"}}, Value: ts.TpmC},
			{Labels: [][2]string{{"window", "cumulative"}}, Value: ts.TpmCCum},
		}
	}
	created := float64(ts.Now.Add(-ts.Elapsed).UnixNano()) / 1e9
	txns := om.Family{Name: "benchrig_tpcc_transactions", Type: "counter", Help: "Completed transactions per type."}
	errs := om.Family{Name: "benchrig_tpcc_errors", Type: "counter", Help: "Failed transactions per type (retries exhausted included)."}
	retries := om.Family{Name: "benchrig_tpcc_retries", Type: "counter", Help: "Serialization-failure and deadlock retries per type."}
	lat := om.Family{Name: "benchrig_tpcc_latency_seconds", Type: "histogram", Unit: "seconds", Help: "Transaction latency per type, since the measurement started."}
	for _, x := range ts.Txns {
		l := [][2]string{{"txn", x.Name}}
		counter := func(f *om.Family, v int64) {
			f.Samples = append(f.Samples, om.Sample{Suffix: "_total", Labels: l, Value: float64(v)}, om.Sample{Suffix: "_created", Labels: l, Value: created})
		}
		counter(&txns, x.CountCum)
		counter(&errs, x.ErrorsCum)
		counter(&retries, x.RetriesCum)
		lat.Samples = append(lat.Samples, latencySamples(l, x)...)
		lat.Samples = append(lat.Samples, om.Sample{Suffix: "_created", Labels: l, Value: created})
	}
	return []om.Family{measuring, elapsed, tpmc, txns, errs, retries, lat}
}

// latencySamples are one type's buckets, count and sum. A recorded value
// is counted in the first bucket whose bound is at least the highest
// value the histogram cannot tell it from, so no value is ever counted
// below its own bucket.
func latencySamples(l [][2]string, x TxnTick) []om.Sample {
	counts := make([]int64, len(LatencyBuckets))
	var total int64
	var sum float64
	if h := x.Cumulative; h != nil {
		total = h.TotalCount()
		sum = h.Mean() * float64(total) / float64(time.Second)
		for _, bar := range h.Distribution() {
			if bar.Count == 0 {
				continue
			}
			for i, le := range LatencyBuckets {
				if float64(bar.To) <= le*float64(time.Second) {
					counts[i] += bar.Count
					break
				}
			}
		}
	}
	out := make([]om.Sample, 0, len(LatencyBuckets)+3)
	var cum int64
	for i, le := range LatencyBuckets {
		cum += counts[i]
		out = append(out, om.Sample{Suffix: "_bucket", Labels: withLabel(l, "le", strconv.FormatFloat(le, 'g', -1, 64)), Value: float64(cum)})
	}
	out = append(out,
		om.Sample{Suffix: "_bucket", Labels: withLabel(l, "le", "+Inf"), Value: float64(total)},
		om.Sample{Suffix: "_count", Labels: l, Value: float64(total)},
		om.Sample{Suffix: "_sum", Labels: l, Value: sum},
	)
	return out
}

func withLabel(l [][2]string, k, v string) [][2]string {
	return append(l[:len(l):len(l)], [2]string{k, v})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ServeLiveMetrics listens on addr (":2112", "127.0.0.1:0") and serves m
// at /metrics until ctx ends; it returns the address it listens on. A
// scrape never waits for the run: it reads the latest tick only.
func ServeLiveMetrics(ctx context.Context, addr string, m *LiveMetrics) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--prometheus-port: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = l.Close()
		}
	}()
	return l.Addr(), nil
}
