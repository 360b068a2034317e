//go:build linux

package tpcc

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// rawPair is a rawConn dialled to a loopback listener, and the accepted
// end (a plain TCPConn).
func rawPair(t *testing.T) (*rawConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := &pgconn.Config{DialFunc: (&net.Dialer{}).DialContext}
	rawIO(cfg)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := cfg.DialFunc(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	rc, ok := c.(*rawConn)
	if !ok {
		t.Fatalf("dialled a %T, not a rawConn", c)
	}
	t.Cleanup(func() { rc.Close(); peer.Close() })
	return rc, peer
}

// TestRawConnMovesEveryByte: 16 MiB each way, far beyond the sockets'
// buffers, so that writes meet a full buffer (EAGAIN, wait, go on) and
// reads an empty one, both ways at once; then EOF when the peer closes.
func TestRawConnMovesEveryByte(t *testing.T) {
	c, peer := rawPair(t)
	data := make([]byte, 16<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() { // the peer echoes everything back
		_, err := io.Copy(peer, io.LimitReader(peer, int64(len(data))))
		errs <- err
	}()
	go func() {
		n, err := c.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		errs <- err
	}()
	got := make([]byte, len(data))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the bytes read back differ from those written")
	}
	peer.Close()
	if n, err := c.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("read after the peer closed: %d, %v; want 0, EOF", n, err)
	}
}

// TestRawConnDeadlines: a read waiting on an idle socket ends at its
// deadline with the error net's own reads give (a net.Error whose Timeout
// is true: how pgconn tells a cancelled query's deadline from a broken
// connection), and a write into a full buffer too; after Close, reads
// fail with net.ErrClosed.
func TestRawConnDeadlines(t *testing.T) {
	c, _ := rawPair(t)
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.Read(make([]byte, 10))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want a net.Error timing out", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the read's deadline took %v", d)
	}
	// Nobody reads the peer: the write fills both buffers, then waits.
	big := make([]byte, 64<<20)
	if err := c.SetWriteDeadline(time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := c.Write(big)
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("write past its deadline: %v, want a net.Error timing out", err)
	}
	if n <= 0 || n >= len(big) {
		t.Errorf("a write cut by its deadline reports %d bytes written, want the part written", n)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after Close: %v, want net.ErrClosed", err)
	}
}

// TestRawIOWithPostgres: a pgx connection over rawConn runs queries, and
// a query cancelled by its context ends at once (pgconn sets a deadline
// on the socket) and leaves an error, not a hang.
func TestRawIOWithPostgres(t *testing.T) {
	s := pgtest.Start(t, pgtest.NoSync())
	cfg, err := pgx.ParseConfig(s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	rawIO(&cfg.Config)
	ctx := context.Background()
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, ok := c.PgConn().Conn().(*rawConn); !ok {
		t.Fatalf("the connection is a %T, not a rawConn", c.PgConn().Conn())
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, $1::int)", 100000).Scan(&n); err != nil || n != 100000 {
		t.Fatalf("query: %d, %v", n, err)
	}
	qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = c.Exec(qctx, "SELECT pg_sleep(30)")
	if err == nil {
		t.Fatal("a query past its context's deadline succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the cancelled query returned after %v", d)
	}
}

// BenchmarkRawIO compares the client's CPU per round trip (SELECT 1
// prepared, one connection to a real PostgreSQL) with net's reads and
// writes and with rawConn's, side by side. Between replies the client
// is idle, as a driver waiting on its server is: with net's calls every
// read and write wakes Go's monitor thread, which then polls.
func BenchmarkRawIO(b *testing.B) {
	s := pgtest.Start(b, pgtest.NoSync())
	ctx := context.Background()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	perTrip := map[bool]float64{}
	for _, raw := range []bool{false, true} {
		cfg, err := pgx.ParseConfig(s.URL("postgres"))
		if err != nil {
			b.Fatal(err)
		}
		if raw {
			rawIO(&cfg.Config)
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		var x int
		const trips = 20000
		c0, t0 := cpu(), time.Now()
		for range trips {
			if err := c.QueryRow(ctx, "SELECT 1").Scan(&x); err != nil {
				b.Fatal(err)
			}
		}
		perTrip[raw] = float64(cpu()-c0) / trips / 1e3
		b.Logf("raw %v: %.1f µs CPU, %.1f µs wall per round trip", raw, perTrip[raw], float64(time.Since(t0))/trips/1e3)
		c.Close(ctx)
	}
	b.ReportMetric(perTrip[false], "net-cpu-µs/trip")
	b.ReportMetric(perTrip[true], "raw-cpu-µs/trip")
	b.ReportMetric(perTrip[true]/perTrip[false], "raw/net")
}
