package functions

import (
	"context"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/profile/pipelined"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// BenchmarkProfileMixCPU runs the pipelined and the functions profile side
// by side on one real PostgreSQL (one warehouse, fsync on, read
// committed): one no-wait worker walking its deck (23 transactions, 10
// New-Orders, per iteration), client and server CPU per 1,000 New-Orders.
// One worker measures each transaction's own cost, without the lock waits
// and retries of a contended run (docs/measure/compare-profiles.sh
// measures those). The functions profile's goal: client
// <= 200 ms, server <= 1,500 ms per 1,000 New-Orders.
//
//	go test ./tpcc -run '^$' -bench ProfileMixCPU -benchtime 200x
func BenchmarkProfileMixCPU(b *testing.B) {
	url, srv := tpcctest.LoadWarehousesWith(b, install, 1, 1)
	ctx := context.Background()
	for _, prof := range []tpcc.LoadProfile{pipelined.Profile{}, Profile{}} {
		p := prof.Name()
		b.Run(string(p), func(b *testing.B) {
			pc, err := pgxpool.ParseConfig(url)
			if err != nil {
				b.Fatal(err)
			}
			pc.MaxConns = 1
			pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
			tpcc.SizeConnConfig(pc.ConnConfig)
			pool, err := pgxpool.NewWithConfig(ctx, pc)
			if err != nil {
				b.Fatal(err)
			}
			defer pool.Close()
			m, _, err := tpcc.DatabaseMeta(ctx, pool, 0)
			if err != nil {
				b.Fatal(err)
			}
			if err := prof.Warm(ctx, []*pgxpool.Pool{pool}, 1, tpcc.Postgres); err != nil {
				b.Fatal(err)
			}
			rc := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
			r := tpcc.NewRand(9, 1)
			ex := prof.NewExecutor(tpcc.Session{Rand: r, Constants: prof.RunConstants(tpcc.NewRand(9, 0), m), Warehouses: 1, Dialect: tpcc.Postgres,
				ReadWrite: rc, ReadOnly: pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}, Tally: tpcc.NewTally(1)})
			home := tpcc.Home{W: 0, D: 1}
			deck := tpcc.NewDeck()
			pass := func() {
				for range tpcc.DeckSize {
					if _, err := ex.Exec(ctx, tpcc.PgxPool{Pool: pool}, deck.Next(r), home); err != nil {
						b.Fatal(err)
					}
				}
			}
			pass() // prepare, plan
			runtime.GC()
			clientBefore, serverBefore := pgtest.SelfCPU(b), pgtest.ServerCPU(b, srv)
			b.ResetTimer()
			for b.Loop() {
				pass()
			}
			b.StopTimer()
			pgtest.ReportPer1000NewOrders(b, pgtest.SelfCPU(b)-clientBefore, pgtest.ServerCPU(b, srv)-serverBefore, float64(b.N*10))
		})
	}
}

// BenchmarkProfileTxnCPU is BenchmarkProfileMixCPU per transaction type:
// client and server CPU per transaction of each profile, side by side.
//
//	go test ./tpcc -run '^$' -bench ProfileTxnCPU -benchtime 200x
func BenchmarkProfileTxnCPU(b *testing.B) {
	url, srv := tpcctest.LoadWarehousesWith(b, install, 1, 1)
	ctx := context.Background()
	for ty := range tpcc.NumTxnTypes {
		for _, prof := range []tpcc.LoadProfile{pipelined.Profile{}, Profile{}} {
			p := prof.Name()
			b.Run(ty.String()+"/"+string(p), func(b *testing.B) {
				pc, err := pgxpool.ParseConfig(url)
				if err != nil {
					b.Fatal(err)
				}
				pc.MaxConns = 1
				pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
				tpcc.SizeConnConfig(pc.ConnConfig)
				pool, err := pgxpool.NewWithConfig(ctx, pc)
				if err != nil {
					b.Fatal(err)
				}
				defer pool.Close()
				m, _, err := tpcc.DatabaseMeta(ctx, pool, 0)
				if err != nil {
					b.Fatal(err)
				}
				rc := pgx.TxOptions{IsoLevel: pgx.ReadCommitted}
				ex := prof.NewExecutor(tpcc.Session{Rand: tpcc.NewRand(9, 1), Constants: prof.RunConstants(tpcc.NewRand(9, 0), m), Warehouses: 1, Dialect: tpcc.Postgres,
					ReadWrite: rc, ReadOnly: pgx.TxOptions{IsoLevel: pgx.ReadCommitted, AccessMode: pgx.ReadOnly}, Tally: tpcc.NewTally(1)})
				home := tpcc.Home{W: 0, D: 1}
				for range 10 { // prepare, plan (generic plans from the sixth call)
					if _, err := ex.Exec(ctx, tpcc.PgxPool{Pool: pool}, ty, home); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				clientBefore, serverBefore := pgtest.SelfCPU(b), pgtest.ServerCPU(b, srv)
				b.ResetTimer()
				for b.Loop() {
					if _, err := ex.Exec(ctx, tpcc.PgxPool{Pool: pool}, ty, home); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				n := float64(b.N)
				b.ReportMetric(float64(pgtest.SelfCPU(b)-clientBefore)/1e3/n, "client-CPU-µs/txn")
				b.ReportMetric(float64(pgtest.ServerCPU(b, srv)-serverBefore)/1e3/n, "server-CPU-µs/txn")
			})
		}
	}
}
