package tpcc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// BenchmarkNoWaitIsolation runs the same no-wait workload (8 workers on 4
// warehouses, each run 15 s, against one durable PostgreSQL) at each
// isolation level, side by side: no-wait comparisons with other drivers
// mean something only at the same level, and the retries a level causes
// are part of its cost. Reported per level: tpmC, retries per 1,000
// transactions, client CPU per 1,000 New-Orders (this process's
// getrusage), server CPU per 1,000 New-Orders, and errors (transactions
// that gave up; want 0).
func BenchmarkNoWaitIsolation(b *testing.B) {
	const warehouses, workers = 4, 8
	srv := pgtest.Start(b)
	url := loadInto(b, srv, warehouses)
	for _, lvl := range []struct {
		name string
		iso  pgx.TxIsoLevel
	}{{"read-committed", pgx.ReadCommitted}, {"repeatable-read", pgx.RepeatableRead}, {"serializable", pgx.Serializable}} {
		b.Run(lvl.name, func(b *testing.B) {
			var newOrders, done, retries, errs int64
			var client, server, elapsed time.Duration
			for b.Loop() {
				c0, s0 := selfCPU(b), serverCPU(b, srv)
				res, err := Run(context.Background(), RunConfig{
					URLs: []string{url}, Warehouses: warehouses, Wait: 0, Workers: workers,
					Duration: 15 * time.Second, Isolation: lvl.iso, Seed: 14,
				})
				if err != nil && !errors.As(err, new(*AuditError)) {
					b.Fatal(err)
				}
				client += selfCPU(b) - c0
				server += serverCPU(b, srv) - s0
				elapsed += res.Elapsed
				newOrders += res.Counts[NewOrderTxn]
				for t := range numTxnTypes {
					done += res.Counts[t]
					retries += res.Retries[t]
					errs += res.Errors[t]
				}
			}
			b.ReportMetric(float64(newOrders)/elapsed.Minutes(), "tpmC")
			b.ReportMetric(per1000(retries, done), "retries/1000-txns")
			b.ReportMetric(float64(client)/float64(time.Millisecond)/float64(newOrders)*1000, "client-CPU-ms/1000-NO")
			b.ReportMetric(float64(server)/float64(time.Millisecond)/float64(newOrders)*1000, "server-CPU-ms/1000-NO")
			b.ReportMetric(float64(errs), "errors")
		})
	}
}
