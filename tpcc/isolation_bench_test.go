package tpcc

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/result"
)

// BenchmarkNoWaitIsolation runs the same no-wait workload (8 workers on 4
// warehouses, each run 15 s, against one durable PostgreSQL) at each
// isolation level, side by side: no-wait comparisons with other drivers
// mean something only at the same level, and the retries a level causes
// are part of its cost. The levels take turns within each iteration
// (RC, RR, SER, RC, ...) so that a change of the machine's load falls on
// all three alike. Reported per level: committed New-Orders per minute
// (tpmC), retries per 1,000 transactions, the share of response time lost
// to retries, client CPU per 1,000 New-Orders (this process's getrusage),
// server CPU per 1,000 New-Orders, errors (transactions that gave up;
// want 0), and the stability of the run: the lowest 1 s tick's
// tpmC after the first 5 s over the median tick's.
//
//	go test ./tpcc -run '^$' -bench NoWaitIsolation -benchtime 2x
func BenchmarkNoWaitIsolation(b *testing.B) {
	const warehouses, workers = 4, 8
	srv := pgtest.Start(b)
	url := loadInto(b, srv, warehouses)
	levels := []struct {
		name, short string
		iso         pgx.TxIsoLevel
	}{{"read-committed", "RC", pgx.ReadCommitted}, {"repeatable-read", "RR", pgx.RepeatableRead}, {"serializable", "SER", pgx.Serializable}}
	type sums struct {
		newOrders, done, retries, errs int64
		client, server, elapsed        time.Duration
		lostMs, latencyMs              float64
		minOverMedian                  float64 // the worst run's
	}
	var all [3]sums
	for i := range all {
		all[i].minOverMedian = 1
	}
	for b.Loop() {
		for i, lvl := range levels {
			s := &all[i]
			var ticks tickTpmC
			c0, s0 := pgtest.SelfCPU(b), pgtest.ServerCPU(b, srv)
			res, err := Run(context.Background(), RunConfig{ChooseProfile: chooseForTests,
				URLs: []string{url}, Warehouses: warehouses, Wait: 0, Workers: workers,
				Duration: 15 * time.Second, Isolation: lvl.iso, Seed: 14, Ticks: &ticks,
			})
			if err != nil && !errors.As(err, new(*AuditError)) {
				b.Fatalf("%s: %v", lvl.name, err)
			}
			s.client += pgtest.SelfCPU(b) - c0
			s.server += pgtest.ServerCPU(b, srv) - s0
			s.elapsed += res.Elapsed
			s.newOrders += res.Counts[NewOrderTxn]
			doc := NewResult(RunConfig{Warehouses: warehouses}, res, nil)
			for t := range numTxnTypes {
				s.done += res.Counts[t]
				s.retries += res.Retries[t]
				s.errs += res.Errors[t]
			}
			for _, t := range doc.Transactions {
				s.latencyMs += t.Mean * float64(t.Count)
				if t.RetryLostMs != nil {
					s.lostMs += *t.RetryLostMs
				}
			}
			s.minOverMedian = min(s.minOverMedian, ticks.minOverMedian(5*time.Second))
		}
	}
	// One benchmark, the level in each metric's unit: the levels ran
	// interleaved in the same loop, which sub-benchmarks cannot do.
	for i, lvl := range levels {
		s, l := all[i], "/"+lvl.short
		b.ReportMetric(float64(s.newOrders)/s.elapsed.Minutes(), "tpmC"+l)
		b.ReportMetric(result.Per1000(s.retries, s.done), "retries/1000-txns"+l)
		if s.latencyMs > 0 {
			b.ReportMetric(100*s.lostMs/s.latencyMs, "retry-lost-%"+l)
		}
		b.ReportMetric(float64(s.client)/float64(time.Millisecond)/float64(s.newOrders)*1000, "client-CPU-ms/1000-NO"+l)
		b.ReportMetric(float64(s.server)/float64(time.Millisecond)/float64(s.newOrders)*1000, "server-CPU-ms/1000-NO"+l)
		b.ReportMetric(s.minOverMedian, "min/median-tick-tpmC"+l)
		b.ReportMetric(float64(s.errs), "errors"+l)
	}
}

// tickTpmC keeps a run's per-tick New-Order rate (a result.TickSink).
type tickTpmC struct {
	mu     sync.Mutex
	at     []time.Duration
	values []float64
}

func (k *tickTpmC) Write(ts result.TickStats) error {
	if ts.Phase == result.PhaseRun && ts.HasTpmC {
		k.mu.Lock()
		k.at = append(k.at, ts.Elapsed)
		k.values = append(k.values, ts.TpmC)
		k.mu.Unlock()
	}
	return nil
}

// minOverMedian is the lowest tick's tpmC after skip over the median
// tick's (1 without ticks).
func (k *tickTpmC) minOverMedian(skip time.Duration) float64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	var v []float64
	for i, at := range k.at {
		if at > skip {
			v = append(v, k.values[i])
		}
	}
	if len(v) == 0 {
		return 1
	}
	slices.Sort(v)
	med := v[len(v)/2]
	if med <= 0 {
		return 0
	}
	return v[0] / med
}
