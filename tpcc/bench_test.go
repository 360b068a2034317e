package tpcc

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/jackc/pgx/v5"
)

// rusageSelf is this process's user+system CPU time so far (all threads:
// generation, pgx, GC).
func rusageSelf(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoad loads 4 warehouses into a real PostgreSQL with its
// durable defaults (fsync on) and reports, measured side by side in the
// same run: rows/s, the client's CPU (getrusage of this process), the
// server's CPU (/proc/<pid>/stat of the postmaster and its children), and
// their ratio. The target is client/server <= 0.20: the driver must never
// be what limits a load.
func BenchmarkLoad(b *testing.B) {
	const warehouses = 4
	s := pgtest.Start(b)
	ctx := context.Background()
	var rows int64
	var client, server, wall time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		url := s.NewDatabase(b)
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		if err := Init(ctx, conn, InitOptions{Warehouses: warehouses, Seed: uint64(i + 1)}); err != nil {
			b.Fatal(err)
		}
		conn.Close(ctx)
		c0 := rusageSelf(b)
		s0, err := s.CPUTime()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		b.StartTimer()
		st, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		wall += time.Since(t0)
		s1, err := s.CPUTime()
		if err != nil {
			b.Fatal(err)
		}
		client += rusageSelf(b) - c0
		server += s1 - s0
		rows += st.Rows
	}
	n := float64(b.N)
	b.ReportMetric(float64(rows)/wall.Seconds(), "rows/s")
	b.ReportMetric(client.Seconds()/n, "client_cpu_s")
	b.ReportMetric(server.Seconds()/n, "server_cpu_s")
	b.ReportMetric(client.Seconds()/server.Seconds(), "client/server")
}
