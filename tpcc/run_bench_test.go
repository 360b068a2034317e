package tpcc

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkTerminalMemory measures the scheduler's share of wait-mode
// terminals only: 200,000 terminal entries (20,000 warehouses) created and
// scheduled, against the same number of parked goroutines — what a
// goroutine-per-terminal design would cost — in the same run. It is the
// argument for one heap instead of a goroutine (or timer) per terminal,
// not what a run costs: BenchmarkWaitMemory measures real runs with their
// connections.
func BenchmarkTerminalMemory(b *testing.B) {
	const n = 200000
	inUse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse
	}
	for b.Loop() {
		before := inUse()
		parts, err := NewPartitions(n/10, n/10, 1)
		if err != nil {
			b.Fatal(err)
		}
		pl, err := planTerminals(parts, nil, 1, false)
		if err != nil {
			b.Fatal(err)
		}
		r := NewRand(1, 1)
		terms := make([]terminal, len(pl.homes))
		for i := range terms {
			t := &terms[i]
			t.home, t.url, t.deck = pl.homes[i], pl.pool[i], NewDeck()
			t.next = t.deck.Next(r)
			t.due = int64(r.Float64() * float64(KeyingTime(t.next, 1)))
		}
		pl = plan{} // the plan is transient: only terms and the scheduler stay
		s := newScheduler(time.Now(), terms, 1)
		perTerminal := float64(inUse()-before) / n
		runtime.KeepAlive(s)

		before = inUse()
		var wg sync.WaitGroup
		park := make(chan struct{})
		for range n {
			wg.Add(1)
			go func() { defer wg.Done(); <-park }()
		}
		perGoroutine := float64(inUse()-before) / n
		close(park)
		wg.Wait()

		b.ReportMetric(perTerminal, "scheduler-B/terminal")
		b.ReportMetric(perTerminal*n/(1<<20), "scheduler-MiB/200k-terminals")
		b.ReportMetric(perGoroutine/perTerminal, "goroutine/terminal-ratio")
	}
}
