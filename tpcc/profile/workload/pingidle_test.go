package workload

import (
	"context"
	"testing"
	"time"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestPoolPingsIdlePerRelease: a transaction on a connection idle for
// over a second costs one more round trip where the release's workload
// pools ping it (pgxpool v5, crdb.Release.WorkloadPoolPingsIdle: v25.x),
// and none where they do not (v20.1's pgx v3 pool), counted on the wire.
func TestPoolPingsIdlePerRelease(t *testing.T) {
	if err := pgtest.Available(); err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	srv := pgtest.Start(t, pgtest.NoSync())
	proxy := pgtest.StartWireCounter(t, srv.URL("postgres"))
	ctx := context.Background()
	for _, tt := range []struct {
		version string
		trips   int64
	}{{"v20.1.17", 1}, {"v25.4.0", 2}} {
		version := tt.version
		b, err := crdb.ParseBuild(version)
		if err != nil {
			t.Fatal(err)
		}
		ping := b.Release().WorkloadPoolPingsIdle
		pools, err := tpcc.OpenPoolsPinging(ctx, []string{proxy.URL}, 1, 0, ping)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pools[0].Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond)
		before := proxy.Snapshot()
		if _, err := pools[0].Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		got := proxy.Snapshot().Minus(before).Waits()
		if want := tt.trips; got != want {
			t.Errorf("%s (pings idle: %v): %d round trips for a statement on an idle connection, want %d", version, ping, got, want)
		}
		pools[0].Close()
	}
}
