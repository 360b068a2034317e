package workload

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// TestWorkloadRoundTripsOnPostgres measures the workload profile's round
// trips on the wire, not by counting calls: the run's own pools
// (openPools, warmed by the profile) talk to a real PostgreSQL through a
// loopback proxy that reads the client's protocol messages. A round trip
// is a message the client must wait on: a Sync (extended protocol) or a
// Query (simple protocol), each answered by ReadyForQuery; the proxy also
// counts the client's turns (data sent after the server last spoke),
// which must agree.
//
// The counts are workload v20.1's (docs/fidelity/v20.1.md, "Round
// trips"): with pgx v3.6.2 its inline-value Query (New-Order's item and
// stock SELECTs, Delivery's UPDATE "order" ... RETURNING) prepares an
// unnamed statement and then executes it, two round trips each. New-Order
// 15 (8 when it rolls back: BEGIN, SAVEPOINT, 3 prepared statements, the
// item SELECT's 2, ROLLBACK), Payment 8 (9 by last name), Order-Status 7,
// Delivery 29 while every district has an undelivered order, Stock-Level
// 6. One transaction starts on a connection idle for more than a second:
// workload's pgx v3 pool hands it out without a ping, and so must the
// run's pools (pgxpool pings such a connection by default, a round trip
// more).
func TestWorkloadRoundTripsOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	if err := pgtest.Available(); err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	dbURL, _ := tpcctest.LoadWarehouses(t, 1, 1, pgtest.NoSync())
	ctx := context.Background()

	proxy := startWireCounter(t, dbURL)
	pools, err := tpcc.OpenPools(ctx, []string{proxy.url}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	parts, _ := tpcc.NewPartitions(1, 1, 1)
	p := New(tpcc.Postgres, &tpcc.RunConfig{}, parts)
	if err := p.Warm(ctx, pools, 1, tpcc.Postgres); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	m, _, err := tpcc.DatabaseMeta(ctx, conn, 0)
	if err != nil {
		t.Fatal(err)
	}
	rw := pgx.TxOptions{IsoLevel: pgx.RepeatableRead}
	w := p.NewExecutor(tpcc.Session{Rand: tpcc.NewRand(11, 1), Constants: p.RunConstants(nil, m), Warehouses: 1,
		Dialect: tpcc.Postgres, ReadWrite: rw, ReadOnly: rw, Tally: tpcc.NewTally(1)}).(*worker)
	db := tpcc.PgxPool{Pool: pools[0]}

	want := map[tpcc.TxnType][]int64{tpcc.NewOrderTxn: {15, 8}, tpcc.PaymentTxn: {8, 9}, tpcc.OrderStatusTxn: {7}, tpcc.DeliveryTxn: {29}, tpcc.StockLevelTxn: {6}}
	seen := map[tpcc.TxnType]map[int64]int{}
	run := func(ty tpcc.TxnType) {
		t.Helper()
		before := proxy.snapshot()
		if _, err := p.exec(ctx, w, db, ty, tpcc.Home{W: 0, D: 1}); err != nil && !errors.Is(err, tpcc.ErrNewOrderRollback) {
			t.Fatalf("%s: %v", ty, err)
		}
		d := proxy.snapshot().minus(before)
		if d.waits() != d.turns {
			t.Errorf("%s: %d Syncs and Queries but %d client turns", ty, d.waits(), d.turns)
		}
		if own := p.trips[ty].Load(); own != d.waits() {
			t.Errorf("%s: the profile counted %d round trips, the wire %d", ty, own, d.waits())
		}
		if seen[ty] == nil {
			seen[ty] = map[int64]int{}
		}
		seen[ty][d.waits()]++
	}
	// An idle connection: a pool that pings it adds a round trip here.
	time.Sleep(1100 * time.Millisecond)
	run(tpcc.PaymentTxn)
	for range 10 {
		for ty := range tpcc.NumTxnTypes {
			run(ty)
		}
	}
	// The 1% rollback: more New-Orders until one (seed 11 draws one
	// within the first few hundred).
	for i := 0; i < 1000 && seen[tpcc.NewOrderTxn][8] == 0; i++ {
		run(tpcc.NewOrderTxn)
	}
	t.Logf("round trips measured (count: transactions): %v", seen)
	for ty, ns := range seen {
		for n := range ns {
			if !slices.Contains(want[ty], n) {
				t.Errorf("%s took %d round trips, want one of %v", ty, n, want[ty])
			}
		}
		for _, n := range want[ty] {
			if ns[n] == 0 {
				t.Errorf("%s: no transaction with %d round trips seen (seen %v)", ty, n, ns)
			}
		}
	}
	tpcctest.CheckConsistent(t, dbURL)
}

// wireCounter is a loopback proxy to a PostgreSQL server that counts what
// its clients send: Sync and Query messages, and turns (client data after
// the server last sent some).
type wireCounter struct {
	url     string
	syncs   atomic.Int64
	queries atomic.Int64
	turns   atomic.Int64
}

type wireCount struct{ syncs, queries, turns int64 }

// waits is the round trips: each Sync or Query waits for ReadyForQuery.
func (c wireCount) waits() int64 { return c.syncs + c.queries }

func (c wireCount) minus(o wireCount) wireCount {
	return wireCount{c.syncs - o.syncs, c.queries - o.queries, c.turns - o.turns}
}

func (w *wireCounter) snapshot() wireCount {
	return wireCount{w.syncs.Load(), w.queries.Load(), w.turns.Load()}
}

func startWireCounter(t *testing.T, dbURL string) *wireCounter {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.Host = l.Addr().String()
	w := &wireCounter{url: u.String()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			var serverSent atomic.Bool // the server spoke since the client's last data
			wg.Add(2)
			go func() { // server to client
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						serverSent.Store(true)
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // client to server, counted before it is forwarded
				defer wg.Done()
				defer s.Close()
				w.relayClient(c, s, &serverSent)
			}()
		}
	}()
	return w
}

// relayClient forwards the client's bytes to the server, framing its
// messages: the untyped startup message first (length, protocol 3.0),
// then typed ones (a type byte, a length that counts itself).
func (w *wireCounter) relayClient(c, s net.Conn, serverSent *atomic.Bool) {
	var pending []byte
	started := false
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if serverSent.Swap(false) {
				w.turns.Add(1)
			}
			pending = append(pending, buf[:n]...)
			for {
				if !started {
					if len(pending) < 8 {
						break
					}
					l := int(binary.BigEndian.Uint32(pending))
					if len(pending) < l {
						break
					}
					started = binary.BigEndian.Uint32(pending[4:]) == 196608 // 3.0: not an SSL or GSS request
					pending = pending[l:]
					continue
				}
				if len(pending) < 5 {
					break
				}
				l := 1 + int(binary.BigEndian.Uint32(pending[1:]))
				if len(pending) < l {
					break
				}
				switch pending[0] {
				case 'S':
					w.syncs.Add(1)
				case 'Q':
					w.queries.Add(1)
				}
				pending = pending[l:]
			}
			if _, werr := s.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or closed: the relay ends with the connection
		}
	}
}
