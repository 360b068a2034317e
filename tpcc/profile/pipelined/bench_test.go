package pipelined

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// BenchmarkNoWaitNewOrderCPU measures the client CPU the driver spends per
// 1,000 New-Orders against a real PostgreSQL with one warehouse, next to
// the server's CPU for the same transactions: the client must stay far
// below the database it measures.
func BenchmarkNoWaitNewOrderCPU(b *testing.B) {
	ctx := context.Background()
	srv, pool, w := noWaitWorker(b)
	home := tpcc.Home{W: 1, D: 1}
	for range 50 { // warm the statement cache
		if _, err := w.newOrder(ctx, tpcc.PgxPool{Pool: pool}, home); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC() // the load's garbage must not be collected inside the window
	clientBefore, serverBefore := pgtest.SelfCPU(b), pgtest.ServerCPU(b, srv)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.newOrder(ctx, tpcc.PgxPool{Pool: pool}, home); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	pgtest.ReportPer1000NewOrders(b, pgtest.SelfCPU(b)-clientBefore, pgtest.ServerCPU(b, srv)-serverBefore, float64(b.N))
}

// noWaitWorker is one no-wait worker on a one-warehouse database, with a
// two-connection pool that caches statements as Run's does; the pool is
// closed when the benchmark ends.
func noWaitWorker(b *testing.B) (*pgtest.Server, *pgxpool.Pool, *worker) {
	url, srv := tpcctest.LoadWarehouses(b, 1, 1)
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
	load, err := tpcc.ReadConstants(ctx, pool)
	if err != nil {
		b.Fatal(err)
	}
	w := newWorker(tpcc.Session{Rand: tpcc.NewRand(9, 1), Constants: tpcc.NewRunConstants(tpcc.NewRand(9, 0), load), Warehouses: 1,
		Dialect: tpcc.Postgres, ReadWrite: pgx.TxOptions{IsoLevel: pgx.RepeatableRead},
		ReadOnly: pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, Tally: tpcc.NewTally(1)})
	return srv, pool, w
}

// BenchmarkNoWaitMixCPU is the run phase in no-wait mode: one worker
// walking its deck (all five transactions, 23 per iteration, 10 of them
// New-Orders) against a real PostgreSQL, with latencies recorded as Run
// records them. Client and server CPU are reported per 1,000 New-Orders.
func BenchmarkNoWaitMixCPU(b *testing.B) {
	ctx := context.Background()
	srv, pool, w := noWaitWorker(b)
	rec := histogram.NewRecorder(time.Now(), histogram.TPCCNames()...)
	var ops [tpcc.NumTxnTypes]*histogram.Op
	for t := range tpcc.NumTxnTypes {
		ops[t] = rec.Op(t.String(), time.Now())
	}
	home := tpcc.Home{W: 1, D: 1}
	deck := tpcc.NewDeck()
	pass := func() {
		for range tpcc.DeckSize {
			t := deck.Next(w.draw.Rand)
			begin := time.Now()
			if _, err := w.Exec(ctx, tpcc.PgxPool{Pool: pool}, t, home); err != nil {
				b.Fatal(err)
			}
			ops[t].Record(time.Since(begin))
		}
	}
	pass() // warm the statement cache
	runtime.GC()
	clientBefore, serverBefore := pgtest.SelfCPU(b), pgtest.ServerCPU(b, srv)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		pass()
	}
	b.StopTimer()
	pgtest.ReportPer1000NewOrders(b, pgtest.SelfCPU(b)-clientBefore, pgtest.ServerCPU(b, srv)-serverBefore, float64(b.N*10))
}
