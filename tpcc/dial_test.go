package tpcc

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestOpenPoolsDialsAtMost100PerURL: a run's pools open their
// connections at most MaxDialsPerURL at a time per URL, every URL at
// once, as workload's warm-up does (pgxpool's MinConns would dial all
// 250 per URL at the same instant). Two servers that never finish a
// handshake each see exactly 100 connections, and OpenPools fails when
// its context ends.
func TestOpenPoolsDialsAtMost100PerURL(t *testing.T) {
	a, b := pgtest.NewSilentServer(t), pgtest.NewSilentServer(t)
	// The context ends once both servers have seen MaxDialsPerURL dials
	// at once and half a second more (time for a 101st to show), or
	// after 30 s: a fixed 2 s let a loaded machine establish only 72.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		for ctx.Err() == nil && (a.Top() < MaxDialsPerURL || b.Top() < MaxDialsPerURL) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		cancel()
	}()
	pools, err := OpenPools(ctx, []string{a.URL(), b.URL()}, 250, 0)
	if err == nil {
		closePools(pools)
		t.Fatal("OpenPools succeeded against servers that never answer")
	}
	if !strings.Contains(err.Error(), "connect") {
		t.Errorf("error does not say it failed connecting: %v", err)
	}
	for i, s := range []*pgtest.SilentServer{a, b} {
		if top := s.Top(); top != MaxDialsPerURL {
			t.Errorf("server %d saw at most %d connections being established at once, want %d", i+1, top, MaxDialsPerURL)
		}
	}
}

// TestOpenPoolsKeepsItsConnections: against real PostgreSQL, OpenPools
// returns with every pool holding its perURL connections open (the
// server counts them) before the run starts.
func TestOpenPoolsKeepsItsConnections(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Setting("max_connections", "200"))
	url := srv.NewDatabase(t)
	ctx := context.Background()
	pools, err := OpenPools(ctx, []string{url, url}, 80, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer closePools(pools)
	for i, p := range pools {
		if st := p.Stat(); st.TotalConns() != 80 || st.IdleConns() != 80 {
			t.Errorf("pool %d: %d connections, %d idle; want 80 open and idle", i+1, st.TotalConns(), st.IdleConns())
		}
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 160 {
		t.Errorf("the server has %d connections of the run, want 160", n)
	}
}

// TestHoldEachCallsEachOnDistinctConnections: HoldEach calls each on n
// distinct server sessions per pool (every connection is held until the
// pool's n are done), and an error of each comes back as it is.
func TestHoldEachCallsEachOnDistinctConnections(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.NewDatabase(t)
	ctx := context.Background()
	pools, err := OpenPools(ctx, []string{url, url}, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer closePools(pools)
	var mu sync.Mutex
	pids := map[uint32]int{}
	err = HoldEach(ctx, pools, 5, func(ctx context.Context, pool, conn int, c *pgxpool.Conn) error {
		mu.Lock()
		defer mu.Unlock()
		pids[c.Conn().PgConn().PID()] = pool
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pids) != 10 {
		t.Errorf("each saw %d distinct sessions, want 10 (5 per pool)", len(pids))
	}
	boom := errors.New("boom")
	err = HoldEach(ctx, pools, 5, func(_ context.Context, pool, conn int, _ *pgxpool.Conn) error {
		if pool == 1 && conn == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("HoldEach returned %v, want each's error", err)
	}
	var ae *AcquireError
	if errors.As(err, &ae) {
		t.Errorf("each's error came back as an acquire error: %v", err)
	}
}
