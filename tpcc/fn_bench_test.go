package tpcc

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkProfileMixCPU runs the pipelined and the functions profile side
// by side on one real PostgreSQL (one warehouse, fsync on, read
// committed): one no-wait worker walking its deck (23 transactions, 10
// New-Orders, per iteration), client and server CPU per 1,000 New-Orders.
// One worker measures each transaction's own cost, without the lock waits
// and retries of a contended run (docs/measure/compare-profiles.sh
// measures those). Issue 30's goal for the functions profile: client
// <= 200 ms, server <= 1,500 ms per 1,000 New-Orders.
//
//	go test ./tpcc -run '^$' -bench ProfileMixCPU -benchtime 200x
func BenchmarkProfileMixCPU(b *testing.B) {
	url, srv := benchDatabase(b)
	ctx := context.Background()
	parts, _ := NewPartitions(1, 1, 1)
	for _, p := range []Profile{ProfilePipelined, ProfileFunctions} {
		b.Run(string(p), func(b *testing.B) {
			pc, err := pgxpool.ParseConfig(url)
			if err != nil {
				b.Fatal(err)
			}
			pc.MaxConns = 1
			pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
			sizeConnConfig(pc.ConnConfig)
			pool, err := pgxpool.NewWithConfig(ctx, pc)
			if err != nil {
				b.Fatal(err)
			}
			defer pool.Close()
			m, _, err := DatabaseMeta(ctx, pool, 0)
			if err != nil {
				b.Fatal(err)
			}
			prof, err := (&RunConfig{Profile: p}).profileFor(Postgres, parts)
			if err != nil {
				b.Fatal(err)
			}
			if err := prof.Warm(ctx, []*pgxpool.Pool{pool}, 1, Postgres); err != nil {
				b.Fatal(err)
			}
			var cnt atomic.Pointer[counters]
			cnt.Store(newCounters(1))
			rc := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
			r := NewRand(9, 1)
			ex := prof.NewExecutor(Session{Rand: r, Constants: prof.RunConstants(NewRand(9, 0), m), Warehouses: 1, Dialect: Postgres,
				ReadWrite: rc, ReadOnly: pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}, Tally: Tally{&cnt}})
			home := Home{W: 0, D: 1}
			deck := NewDeck()
			pass := func() {
				for range DeckSize {
					if _, err := ex.Exec(ctx, PgxPool{pool}, deck.Next(r), home); err != nil {
						b.Fatal(err)
					}
				}
			}
			pass() // prepare, plan
			runtime.GC()
			clientBefore, serverBefore := selfCPU(b), serverCPU(b, srv)
			b.ResetTimer()
			for b.Loop() {
				pass()
			}
			b.StopTimer()
			reportPer1000NewOrders(b, selfCPU(b)-clientBefore, serverCPU(b, srv)-serverBefore, float64(b.N*10))
		})
	}
}

// BenchmarkProfileTxnCPU is BenchmarkProfileMixCPU per transaction type:
// client and server CPU per transaction of each profile, side by side.
//
//	go test ./tpcc -run '^$' -bench ProfileTxnCPU -benchtime 200x
func BenchmarkProfileTxnCPU(b *testing.B) {
	url, srv := benchDatabase(b)
	ctx := context.Background()
	parts, _ := NewPartitions(1, 1, 1)
	for ty := range numTxnTypes {
		for _, p := range []Profile{ProfilePipelined, ProfileFunctions} {
			b.Run(ty.String()+"/"+string(p), func(b *testing.B) {
				pc, err := pgxpool.ParseConfig(url)
				if err != nil {
					b.Fatal(err)
				}
				pc.MaxConns = 1
				pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
				sizeConnConfig(pc.ConnConfig)
				pool, err := pgxpool.NewWithConfig(ctx, pc)
				if err != nil {
					b.Fatal(err)
				}
				defer pool.Close()
				m, _, err := DatabaseMeta(ctx, pool, 0)
				if err != nil {
					b.Fatal(err)
				}
				prof, err := (&RunConfig{Profile: p}).profileFor(Postgres, parts)
				if err != nil {
					b.Fatal(err)
				}
				var cnt atomic.Pointer[counters]
				cnt.Store(newCounters(1))
				rc := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
				ex := prof.NewExecutor(Session{Rand: NewRand(9, 1), Constants: prof.RunConstants(NewRand(9, 0), m), Warehouses: 1, Dialect: Postgres,
					ReadWrite: rc, ReadOnly: pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}, Tally: Tally{&cnt}})
				home := Home{W: 0, D: 1}
				for range 10 { // prepare, plan (generic plans from the sixth call)
					if _, err := ex.Exec(ctx, PgxPool{pool}, ty, home); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				clientBefore, serverBefore := selfCPU(b), serverCPU(b, srv)
				b.ResetTimer()
				for b.Loop() {
					if _, err := ex.Exec(ctx, PgxPool{pool}, ty, home); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				n := float64(b.N)
				b.ReportMetric(float64(selfCPU(b)-clientBefore)/1e3/n, "client-CPU-µs/txn")
				b.ReportMetric(float64(serverCPU(b, srv)-serverBefore)/1e3/n, "server-CPU-µs/txn")
			})
		}
	}
}
