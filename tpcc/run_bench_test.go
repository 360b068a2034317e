package tpcc

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// BenchmarkTerminalMemory measures the scheduler's share of wait-mode
// terminals only: 200,000 terminal entries (20,000 warehouses) created and
// scheduled, against the same number of parked goroutines — what a
// goroutine-per-terminal design would cost — in the same run. It is the
// argument for one heap instead of a goroutine (or timer) per terminal,
// not what a run costs: BenchmarkWaitMemory measures real runs with their
// connections.
func BenchmarkTerminalMemory(b *testing.B) {
	const n = 200000
	inUse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	for b.Loop() {
		before := inUse()
		parts, err := NewPartitions(n/10, n/10, 1)
		if err != nil {
			b.Fatal(err)
		}
		pl, err := planTerminals(parts, nil, 1, false)
		if err != nil {
			b.Fatal(err)
		}
		r := NewRand(1, 1)
		terms := make([]terminal, len(pl.homes))
		for i := range terms {
			t := &terms[i]
			t.home, t.url, t.deck = pl.homes[i], pl.pool[i], NewDeck()
			t.next = t.deck.Next(r)
			t.due = int64(r.Float64() * float64(KeyingTime(t.next, 1)))
		}
		pl = plan{} // the plan is transient: only terms and the scheduler stay
		s := newScheduler(time.Now(), terms, 1)
		perTerminal := float64(inUse()-before) / n
		runtime.KeepAlive(s)

		before = inUse()
		var wg sync.WaitGroup
		park := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() { defer wg.Done(); <-park }()
		}
		perGoroutine := float64(inUse()-before) / n
		close(park)
		wg.Wait()

		b.ReportMetric(perTerminal, "scheduler-B/terminal")
		b.ReportMetric(perTerminal*n/(1<<20), "scheduler-MiB/200k-terminals")
		b.ReportMetric(perGoroutine/perTerminal, "goroutine/terminal-ratio")
	}
}

// BenchmarkNoWaitNewOrderCPU measures the client CPU the driver spends per
// 1,000 New-Orders against a real PostgreSQL with one warehouse, next to
// the server's CPU for the same transactions: the client must stay far
// below the database it measures.
func BenchmarkNoWaitNewOrderCPU(b *testing.B) {
	ctx := context.Background()
	srv, pool, w := noWaitWorker(b)
	home := Home{W: 1, D: 1}
	for range 50 { // warm the statement cache
		if _, err := w.newOrder(ctx, PgxPool{pool}, home); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC() // the load's garbage must not be collected inside the window
	clientBefore, serverBefore := selfCPU(b), serverCPU(b, srv)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.newOrder(ctx, PgxPool{pool}, home); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPer1000NewOrders(b, selfCPU(b)-clientBefore, serverCPU(b, srv)-serverBefore, float64(b.N))
}

// noWaitWorker is one no-wait worker on a one-warehouse database, with a
// two-connection pool that caches statements as Run's does; the pool is
// closed when the benchmark ends.
func noWaitWorker(b *testing.B) (*pgtest.Server, *pgxpool.Pool, *worker) {
	url, srv := benchDatabase(b)
	ctx := context.Background()
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	pc.MaxConns = 2
	pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	load, err := ReadConstants(ctx, pool)
	if err != nil {
		b.Fatal(err)
	}
	var cnt atomic.Pointer[counters]
	cnt.Store(newCounters(1))
	w := newWorker(NewRand(9, 1), NewRunConstants(NewRand(9, 0), load), 1, RetryPolicy{},
		pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, &cnt)
	return srv, pool, w
}

// reportPer1000NewOrders reports client and server CPU per 1,000
// New-Orders, and their ratio.
func reportPer1000NewOrders(b *testing.B, client, server time.Duration, newOrders float64) {
	per1000 := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / newOrders * 1000 }
	b.ReportMetric(per1000(client), "client-CPU-ms/1000-NO")
	b.ReportMetric(per1000(server), "server-CPU-ms/1000-NO")
	if server > 0 {
		b.ReportMetric(float64(client)/float64(server), "client/server-CPU")
	}
}

func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func serverCPU(b *testing.B, srv interface{ CPUTime() (time.Duration, error) }) time.Duration {
	d, err := srv.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkNoWaitMixCPU is the run phase in no-wait mode: one worker
// walking its deck (all five transactions, 23 per iteration, 10 of them
// New-Orders) against a real PostgreSQL, with latencies recorded as Run
// records them. Client and server CPU are reported per 1,000 New-Orders.
func BenchmarkNoWaitMixCPU(b *testing.B) {
	ctx := context.Background()
	srv, pool, w := noWaitWorker(b)
	rec := histogram.NewRecorder(time.Now(), histogram.TPCCNames()...)
	var ops [numTxnTypes]*histogram.Op
	for t := range numTxnTypes {
		ops[t] = rec.Op(t.String(), time.Now())
	}
	home := Home{W: 1, D: 1}
	deck := NewDeck()
	pass := func() {
		for range DeckSize {
			t := deck.Next(w.rng)
			begin := time.Now()
			if _, err := w.Exec(ctx, PgxPool{pool}, t, home); err != nil {
				b.Fatal(err)
			}
			ops[t].Record(time.Since(begin))
		}
	}
	pass() // warm the statement cache
	runtime.GC()
	clientBefore, serverBefore := selfCPU(b), serverCPU(b, srv)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	reportPer1000NewOrders(b, selfCPU(b)-clientBefore, serverCPU(b, srv)-serverBefore, float64(b.N*10))
}
