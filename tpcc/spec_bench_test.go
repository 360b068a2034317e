package tpcc

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// BenchmarkSpecPaced is a spec-paced run (wait mode, clause 5.2.5 keying
// and think times, 10 terminals per warehouse, the default connections)
// of BENCHRIG_SPEC_WAREHOUSES loaded warehouses (100: 1,000
// terminals) on a durable PostgreSQL: 1 minute of ramp, then
// BENCHRIG_SPEC_MINUTES (default 3) measured. It reports the efficiency
// (want >= 85%), tpmC, and the client's CPU over the ramp and measurement
// as a percentage of one core (want < 10%).
//
// Loading 100 warehouses takes minutes and ~8 GB of disk, so it runs only
// when asked: BENCHRIG_SPEC_WAREHOUSES=100 go test -run '^$' -bench
// SpecPaced -benchtime 1x ./tpcc/
func BenchmarkSpecPaced(b *testing.B) {
	w, _ := strconv.Atoi(os.Getenv("BENCHRIG_SPEC_WAREHOUSES"))
	if w <= 0 {
		b.Skip("set BENCHRIG_SPEC_WAREHOUSES (e.g. 100) to load that many warehouses and run them spec-paced")
	}
	minutes, _ := strconv.Atoi(os.Getenv("BENCHRIG_SPEC_MINUTES"))
	if minutes <= 0 {
		minutes = 3
	}
	srv := pgtest.Start(b)
	t0 := time.Now()
	url := loadInto(b, srv, w)
	b.Logf("loaded %d warehouses in %s", w, time.Since(t0).Round(time.Second))
	for b.Loop() {
		c0 := pgtest.SelfCPU(b)
		start := time.Now()
		res, err := Run(context.Background(), RunConfig{ChooseProfile: chooseForTests,
			URLs: []string{url}, Warehouses: w, Wait: 1,
			Ramp: time.Minute, Duration: time.Duration(minutes) * time.Minute, Seed: 100,
		})
		if err != nil && !errors.As(err, new(*AuditError)) {
			b.Fatal(err)
		}
		wall := time.Since(start)
		cpu := pgtest.SelfCPU(b) - c0
		for _, a := range res.Audit {
			b.Log(a)
		}
		var errs int64
		for _, n := range res.Errors {
			errs += n
		}
		b.ReportMetric(float64(w*10), "terminals")
		b.ReportMetric(res.Efficiency, "efficiency-%")
		b.ReportMetric(res.TpmC, "tpmC")
		b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "client-CPU-%-of-core")
		b.ReportMetric(float64(res.Counts[NewOrderTxn]), "new-orders")
		b.ReportMetric(float64(errs), "errors")
	}
}
