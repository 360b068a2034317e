package tpcc

import (
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
	"github.com/benchrig/benchrig/tpcc/result"
)

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
	live := &result.LiveMetrics{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := result.ServeLiveMetrics(ctx, "127.0.0.1:0", live)
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
	res, err := Run(ctx, chosen(cfg))
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
