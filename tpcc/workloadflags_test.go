package tpcc

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

func TestParseMix(t *testing.T) {
	m, err := ParseMix(DefaultMix)
	if err != nil || m != (Mix{10, 10, 1, 1, 1}) || m.String() != DefaultMix {
		t.Fatalf("default mix: %v %v", m, err)
	}
	m, err = ParseMix("newOrder=1, payment=0")
	if err != nil || m != (Mix{1, 0, 0, 0, 0}) {
		t.Errorf("newOrder only: %v %v", m, err)
	}
	for _, bad := range []string{"", "newOrder", "newOrder=-1", "neworder=1", "newOrder=0", "payment=x", "newOrder=1,foo=2"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) succeeded", bad)
		}
	}
}

func FuzzParseMix(f *testing.F) {
	f.Add(DefaultMix)
	f.Add("payment=3,delivery=7")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMix(s)
		if err != nil {
			return
		}
		if m2, err := ParseMix(m.String()); err != nil || m2 != m {
			t.Errorf("%q -> %v does not round-trip", s, m)
		}
	})
}

// TestNewDeckMix: every pass deals exactly the reduced mix.
func TestNewDeckMix(t *testing.T) {
	r := NewRand(1, 0)
	for _, tc := range []struct {
		m    Mix
		pass [numTxnTypes]int
	}{
		{Mix{10, 10, 1, 1, 1}, [numTxnTypes]int{10, 10, 1, 1, 1}},
		{Mix{100, 0, 0, 0, 0}, [numTxnTypes]int{1, 0, 0, 0, 0}},
		{Mix{4, 2, 0, 0, 6}, [numTxnTypes]int{2, 1, 0, 0, 3}},
	} {
		d, err := NewDeckMix(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range tc.pass {
			n += c
		}
		for range 5 {
			var got [numTxnTypes]int
			for range n {
				got[d.Next(r)]++
			}
			if got != tc.pass {
				t.Errorf("mix %v: pass %v, want %v", tc.m, got, tc.pass)
			}
		}
	}
	if _, err := NewDeckMix(Mix{20, 10, 1, 1, 1}); err == nil {
		t.Error("a 33-card mix accepted")
	}
}

func TestParseMethod(t *testing.T) {
	for in, want := range map[string]pgx.QueryExecMode{"prepare": pgx.QueryExecModeCacheStatement,
		"noprepare": pgx.QueryExecModeExec, "simple": pgx.QueryExecModeSimpleProtocol, "": pgx.QueryExecModeCacheStatement} {
		if got, err := ParseMethod(in); err != nil || got != want {
			t.Errorf("ParseMethod(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMethod("fast"); err == nil {
		t.Error("--method fast accepted")
	}
}

func TestOpLimiter(t *testing.T) {
	ctx := context.Background()
	if l := newOpLimiter(0, 0); l != nil || !l.take(ctx) || l.exhausted() != nil {
		t.Fatal("no limits must be a nil limiter that never limits")
	}
	l := newOpLimiter(0, 3)
	for i := range 3 {
		if !l.take(ctx) {
			t.Fatalf("take %d refused", i)
		}
	}
	select {
	case <-l.exhausted():
	default:
		t.Error("not exhausted after --max-ops 3")
	}
	if l.take(ctx) {
		t.Error("a 4th op with --max-ops 3")
	}
	// The rate limiter reserves evenly spaced slots (state, not timing).
	l = newOpLimiter(1000, 0)
	first := time.Now()
	for range 5 {
		l.take(ctx)
	}
	if d := l.next.Sub(first); d < 5*time.Millisecond {
		t.Errorf("5 ops at 1000/s reserved only %s", d)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if newOpLimiter(0.001, 0).take(cctx) {
		t.Error("take on a canceled context")
	}
}

func TestURLPartitions(t *testing.T) {
	// The 100k recipe's first host: affinity 0,5,...,25 over 81 URLs.
	aff := []int{0, 5, 10, 15, 20, 25}
	old := urlPartitions(false, 27, aff, 81)
	if got := old[5]; len(got) != 3 || got[0] != 5 || got[1] != 32 || got[2] != 59 {
		t.Errorf("v20.1: partition 5 served by URLs %v, want 5 32 59 (j %% 27)", got)
	}
	nw := urlPartitions(true, 27, aff, 6)
	if got := nw[25]; len(got) != 1 || got[0] != 5 {
		t.Errorf("v25.1: partition 25 served by %v, want URL 5 (affinity[j])", got)
	}
	one := urlPartitions(false, 27, []int{3}, 4)
	if len(one[3]) != 4 {
		t.Errorf("one affinity: %v", one)
	}
}

func TestWorkersForHost(t *testing.T) {
	parts, _ := NewPartitions(20, 10, 3) // active 3, 3, 4
	if n := WorkersForHost(false, 100, parts, []int{2}); n != 40 {
		t.Errorf("v20.1: %d workers, want 40 (4 of every 10 slots)", n)
	}
	if n := WorkersForHost(true, 100, parts, []int{2}); n != 100 {
		t.Errorf("v25.1: %d workers, want 100", n)
	}
	if n := WorkersForHost(false, 100, parts, nil); n != 100 {
		t.Errorf("no affinity: %d", n)
	}
}

// TestRunWorkloadFlags runs against real PostgreSQL with workload's
// --mix (New-Order only), --max-ops, --max-rate and --method=simple: the
// run ends at max-ops, before its duration, having run only New-Orders.
func TestRunWorkloadFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse into a real PostgreSQL")
	}
	url, _ := loadOneWarehouse(t, pgtest.NoSync())
	mix, _ := ParseMix("newOrder=1")
	mode, _ := ParseMethod("simple")
	var out bytes.Buffer
	start := time.Now()
	res, err := Run(context.Background(), RunConfig{ChooseProfile: chooseForTests, URLs: []string{url}, Warehouses: 1, Wait: 0, Workers: 2,
		Duration: time.Minute, DisplayEvery: 100 * time.Millisecond, Seed: 3, Mix: &mix, MaxOps: 60, MaxRate: 200,
		QueryExecMode: mode, Out: &out})
	if err != nil {
		if _, ok := err.(*AuditError); !ok {
			t.Fatalf("%v\n%s", err, out.String())
		}
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("--max-ops 60 did not end a 1-minute run early")
	}
	var total int64
	for ty, n := range res.Counts {
		total += n
		if TxnType(ty) != NewOrderTxn && n != 0 {
			t.Errorf("%d %s with --mix newOrder=1", n, TxnType(ty))
		}
	}
	if total == 0 || total > 60 {
		t.Errorf("%d transactions with --max-ops 60", total)
	}
}
