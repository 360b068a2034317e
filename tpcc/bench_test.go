package tpcc

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
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

// stockSource is the alternative the loader does not use: pgx's binary
// COPY fed by a CopyFromSource, with the same generator streams, one
// []any of Go values per row. It exists to measure the choice.
type stockSource struct {
	r    *loadRand
	w, i int
	vals []any
	buf  []byte
}

func (s *stockSource) Next() bool { return s.i < stockPerW }
func (s *stockSource) Err() error { return nil }
func (s *stockSource) Values() ([]any, error) {
	s.i++
	r := s.r
	if s.vals == nil {
		s.vals = make([]any, 17)
	}
	v := s.vals
	v[0], v[1], v[2] = int32(s.i), int32(s.w), int32(r.Int(10, 100))
	for d := 0; d < 10; d++ {
		s.buf = r.AppendAString(s.buf[:0], 24, 24)
		v[3+d] = string(s.buf)
	}
	v[13], v[14], v[15] = int32(0), int32(0), int32(0)
	s.buf = r.AppendData(s.buf[:0], 26, 50)
	v[16] = string(s.buf)
	return v, nil
}

// BenchmarkCopyTextVsBinary copies one warehouse's stock (100,000 rows,
// the largest table by bytes) both ways in the same run and reports the
// client CPU of each and their ratio: why the loader writes COPY text
// itself instead of using pgx's binary CopyFromSource.
func BenchmarkCopyTextVsBinary(b *testing.B) {
	s := pgtest.Start(b, pgtest.NoSync())
	ctx := context.Background()
	url := s.NewDatabase(b)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := Init(ctx, conn, InitOptions{Warehouses: 1, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	stock := schemaTables()[2]
	cols := stock.columnNames()
	var text, binary, textSrv, binSrv time.Duration
	measure := func(copyFn func() error) (time.Duration, time.Duration) {
		if _, err := conn.Exec(ctx, "TRUNCATE stock"); err != nil {
			b.Fatal(err)
		}
		c0 := rusageSelf(b)
		s0, _ := s.CPUTime()
		if err := copyFn(); err != nil {
			b.Fatal(err)
		}
		s1, _ := s.CPUTime()
		return rusageSelf(b) - c0, s1 - s0
	}
	for i := 0; i < b.N; i++ {
		c, sv := measure(func() error {
			_, err := conn.PgConn().CopyFrom(ctx, newCopyReader(&stockGen{r: newLoadRand(1, streamFor(0, streamStock)), w: 0, wTxt: []byte("0")}, nil), stock.copySQL())
			return err
		})
		text, textSrv = text+c, textSrv+sv
		c, sv = measure(func() error {
			_, err := conn.CopyFrom(ctx, pgx.Identifier{"stock"}, cols, &stockSource{r: newLoadRand(1, streamFor(0, streamStock)), w: 0})
			return err
		})
		binary, binSrv = binary+c, binSrv+sv
	}
	n := float64(b.N)
	b.ReportMetric(text.Seconds()/n, "text_client_cpu_s")
	b.ReportMetric(binary.Seconds()/n, "binary_client_cpu_s")
	b.ReportMetric(binary.Seconds()/text.Seconds(), "binary/text_client")
	b.ReportMetric(textSrv.Seconds()/n, "text_server_cpu_s")
	b.ReportMetric(binSrv.Seconds()/n, "binary_server_cpu_s")
}
