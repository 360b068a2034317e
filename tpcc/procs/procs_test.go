package procs

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	for _, c := range []struct {
		name string
		in   State
		used float64
		max  int
		want State
	}{
		{"idle stays at one", State{Procs: 1}, 0.05, 8, State{Procs: 1}},
		{"a busy P doubles", State{Procs: 1}, 0.9, 8, State{Procs: 2}},
		{"doubling stops at max", State{Procs: 4}, 3.9, 6, State{Procs: 6}},
		{"at max stays", State{Procs: 2}, 2, 2, State{Procs: 2}},
		{"moderate use keeps Ps", State{Procs: 4}, 2.0, 8, State{Procs: 4}},
		{"low use counts", State{Procs: 4}, 1.0, 8, State{Procs: 4, low: 1}},
		{"low for shrinkAfter periods gives one back", State{Procs: 4, low: shrinkAfter - 1}, 1.0, 8, State{Procs: 3}},
		{"a busy period resets the count", State{Procs: 4, low: 3}, 2.0, 8, State{Procs: 4}},
		{"one P never shrinks", State{Procs: 1, low: 9}, 0, 8, State{Procs: 1}},
		{"above a lowered max", State{Procs: 8}, 8, 2, State{Procs: 2}},
		{"zero state is one P", State{}, 0.1, 4, State{Procs: 1}},
		{"max below one is one", State{Procs: 3}, 3, 0, State{Procs: 1}},
		{"just under the grow threshold", State{Procs: 2}, 1.49, 8, State{Procs: 2}},
		{"just over it", State{Procs: 2}, 1.51, 8, State{Procs: 4}},
	} {
		if got := Next(c.in, c.used, c.max); got != c.want {
			t.Errorf("%s: Next(%+v, %v, %d) = %+v, want %+v", c.name, c.in, c.used, c.max, got, c.want)
		}
	}
}

// TestGovernorFollowsRealDemand runs real CPU-bound goroutines: the
// governor must give them the Ps they need, and restore GOMAXPROCS after.
func TestGovernorFollowsRealDemand(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one core: nothing to grow to")
	}
	before := runtime.GOMAXPROCS(0)
	g := &Governor{Max: 2, Period: 50 * time.Millisecond}
	g.Start(context.Background())
	if p := runtime.GOMAXPROCS(0); p != 1 {
		t.Fatalf("GOMAXPROCS after Start = %d, want 1", p)
	}
	var stop atomic.Bool
	for range 4 {
		go func() {
			for !stop.Load() {
			}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.GOMAXPROCS(0) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop.Store(true)
	st := g.Stop()
	if st.Peak != 2 || st.Changes < 1 {
		t.Errorf("stats %+v: busy goroutines never got the second P", st)
	}
	if p := runtime.GOMAXPROCS(0); p != before {
		t.Errorf("GOMAXPROCS after Stop = %d, want %d restored", p, before)
	}
	g.Stop() // twice is fine
}

// FuzzNext: never outside 1..max, never a panic.
func FuzzNext(f *testing.F) {
	f.Add(1, 0, 0.5, 4)
	f.Add(8, 4, 100.0, 2)
	f.Fuzz(func(t *testing.T, p, low int, used float64, max int) {
		got := Next(State{Procs: p, low: low}, used, max)
		hi := max
		if hi < 1 {
			hi = 1
		}
		if got.Procs < 1 || got.Procs > hi {
			t.Fatalf("Next(%d,%d,%v,%d) = %+v, outside 1..%d", p, low, used, max, got, hi)
		}
	})
}
