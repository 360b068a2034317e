package procs

import (
	"context"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Thresholds of Next, as fractions of the Ps in use.
const (
	// growAt: a process that used more than this share of its Ps over a
	// period was probably short of them (a P that is never idle cannot
	// spin, so use near P means demand at or above P).
	growAt = 0.75
	// shrinkAt: with one P fewer the process would still have had this
	// much headroom (use below shrinkAt × (P-1)).
	shrinkAt = 0.5
	// shrinkAfter periods in a row below shrinkAt before a P is given
	// back: a short lull (a checkpoint on the server, the ramp's end)
	// must not cost a P that the next second needs again.
	shrinkAfter = 5
)

// State is what Next carries from one period to the next.
type State struct {
	Procs int // the current GOMAXPROCS
	low   int // consecutive periods below the shrink threshold
}

// Next returns the state after a period in which the process used `used`
// cores on average (CPU seconds / wall seconds), with at most max Ps.
// Growth doubles (a host of many terminals reaches its cores in a few
// periods); shrinking takes one P at a time after shrinkAfter low periods.
func Next(s State, used float64, max int) State {
	if max < 1 {
		max = 1
	}
	p := s.Procs
	if p < 1 {
		p = 1
	}
	if p > max {
		return State{Procs: max}
	}
	if used > growAt*float64(p) && p < max {
		n := 2 * p
		if n > max {
			n = max
		}
		return State{Procs: n}
	}
	if p > 1 && used < shrinkAt*float64(p-1) {
		if s.low+1 >= shrinkAfter {
			return State{Procs: p - 1}
		}
		return State{Procs: p, low: s.low + 1}
	}
	return State{Procs: p}
}

// Governor adjusts GOMAXPROCS every Period while it runs.
type Governor struct {
	Max    int           // the most Ps (0: runtime.NumCPU())
	Period time.Duration // 0: one second

	mu       sync.Mutex
	peak     int
	restore  int
	changes  int
	stopOnce sync.Once
	done     chan struct{}
	cancel   context.CancelFunc
}

// Start sets GOMAXPROCS to 1 and adjusts it until Stop. The value before
// Start is restored by Stop.
func (g *Governor) Start(ctx context.Context) {
	if g.Max <= 0 {
		g.Max = runtime.NumCPU()
	}
	if g.Period <= 0 {
		g.Period = time.Second
	}
	ctx, g.cancel = context.WithCancel(ctx)
	g.done = make(chan struct{})
	g.restore = runtime.GOMAXPROCS(1)
	g.peak = 1
	go g.loop(ctx)
}

func (g *Governor) loop(ctx context.Context) {
	defer close(g.done)
	t := time.NewTicker(g.Period)
	defer t.Stop()
	s := State{Procs: 1}
	lastCPU, ok := cpuTime()
	lastWall := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c, ok2 := cpuTime()
		now := time.Now()
		if !ok || !ok2 {
			// Without getrusage there is nothing to follow: give the
			// process every core, as Go would have.
			runtime.GOMAXPROCS(g.Max)
			g.note(g.Max)
			return
		}
		wall := now.Sub(lastWall).Seconds()
		if wall <= 0 {
			continue
		}
		used := (c - lastCPU).Seconds() / wall
		lastCPU, lastWall = c, now
		n := Next(s, used, g.Max)
		if n.Procs != s.Procs {
			runtime.GOMAXPROCS(n.Procs)
			g.note(n.Procs)
		}
		s = n
	}
}

func (g *Governor) note(p int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.changes++
	if p > g.peak {
		g.peak = p
	}
}

// Stats is what a run used.
type Stats struct {
	Peak    int // the most Ps at once
	Changes int // how many times GOMAXPROCS changed
}

// Stop ends the adjustment, restores the GOMAXPROCS from before Start and
// returns what was used. It may be called more than once.
func (g *Governor) Stop() Stats {
	g.stopOnce.Do(func() {
		if g.cancel == nil {
			return
		}
		g.cancel()
		<-g.done
		runtime.GOMAXPROCS(g.restore)
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	return Stats{Peak: g.peak, Changes: g.changes}
}

// cpuTime is the process's user+system CPU time so far (every thread).
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
