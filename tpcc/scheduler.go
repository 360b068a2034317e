package tpcc

import (
	"sync"
	"time"
)

// terminal is one emulated terminal in wait mode (clause 5.2.5): a home,
// its deck, the transaction it will submit next and when. 48 bytes, no
// goroutine: 200,000 terminals (20,000 warehouses) fit in ~10 MiB, where a
// goroutine each would cost 2–8 KiB of stack alone.
type terminal struct {
	due  int64 // when the pending transaction is submitted, ns since the scheduler's epoch
	home Home
	deck Deck
	next TxnType
	url  uint16 // index of the connection pool serving this terminal
	// started is set when the terminal first submits (the ramp's
	// progress, TickStats.Terminals); only its executor touches it.
	started bool
}

// scheduler holds the waiting terminals in a min-heap keyed by due time
// (keying and think time pass there) and hands due ones, per connection
// pool, to executor goroutines. A terminal is in exactly one place: the
// heap, a ready queue, or an executor.
//
// Response time (clause 5.3) runs from due to completion, so time spent
// in a ready queue waiting for a free connection counts, as it would for
// a real terminal whose request waits.
type scheduler struct {
	epoch time.Time
	terms []terminal

	mu      sync.Mutex
	heap    []int32 // indexes into terms, ordered by terms[i].due
	ready   []fifo  // per pool
	cond    []*sync.Cond
	wake    chan struct{}
	stopped bool
}

// fifo is a queue of terminal indexes.
type fifo struct {
	items []int32
	head  int
}

func (q *fifo) push(i int32) { q.items = append(q.items, i) }

func (q *fifo) pop() (int32, bool) {
	if q.head == len(q.items) {
		return 0, false
	}
	i := q.items[q.head]
	q.head++
	if q.head == len(q.items) { // empty: reuse the backing array
		q.items, q.head = q.items[:0], 0
	}
	return i, true
}

func newScheduler(epoch time.Time, terms []terminal, pools int) *scheduler {
	s := &scheduler{epoch: epoch, terms: terms, ready: make([]fifo, pools), wake: make(chan struct{}, 1)}
	for range pools {
		s.cond = append(s.cond, sync.NewCond(&s.mu))
	}
	s.heap = make([]int32, 0, len(terms))
	for i := range terms {
		s.heap = append(s.heap, int32(i))
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
	return s
}

func (s *scheduler) less(a, b int) bool { return s.terms[s.heap[a]].due < s.terms[s.heap[b]].due }

func (s *scheduler) up(j int) {
	for j > 0 {
		p := (j - 1) / 2
		if !s.less(j, p) {
			break
		}
		s.heap[p], s.heap[j] = s.heap[j], s.heap[p]
		j = p
	}
}

func (s *scheduler) down(i int) {
	n := len(s.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && s.less(r, l) {
			j = r
		}
		if !s.less(j, i) {
			return
		}
		s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
		i = j
	}
}

func (s *scheduler) popMin() int32 {
	top := s.heap[0]
	last := len(s.heap) - 1
	s.heap[0] = s.heap[last]
	s.heap = s.heap[:last]
	if last > 0 {
		s.down(0)
	}
	return top
}

// release moves every terminal due by now to its ready queue and returns
// how long until the next one is due.
func (s *scheduler) release(now time.Time) time.Duration {
	n := now.Sub(s.epoch).Nanoseconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.heap) > 0 && s.terms[s.heap[0]].due <= n {
		i := s.popMin()
		u := s.terms[i].url
		s.ready[u].push(i)
		s.cond[u].Signal()
	}
	if len(s.heap) == 0 {
		return time.Hour
	}
	return time.Duration(s.terms[s.heap[0]].due - n)
}

// run releases due terminals until stop is closed, then wakes every
// executor so they return.
func (s *scheduler) run(stop <-chan struct{}) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		timer.Reset(s.release(time.Now()))
		select {
		case <-stop:
			s.mu.Lock()
			s.stopped = true
			for _, c := range s.cond {
				c.Broadcast()
			}
			s.mu.Unlock()
			return
		case <-timer.C:
		case <-s.wake:
		}
	}
}

// take blocks until a terminal served by pool u is due, or the scheduler
// stopped (false).
func (s *scheduler) take(u int) (int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.stopped {
			return 0, false
		}
		if i, ok := s.ready[u].pop(); ok {
			return i, true
		}
		s.cond[u].Wait()
	}
}

// put returns terminal i, whose due time the executor has set, to the heap.
func (s *scheduler) put(i int32) {
	s.mu.Lock()
	s.heap = append(s.heap, i)
	s.up(len(s.heap) - 1)
	first := s.heap[0] == i
	s.mu.Unlock()
	if first { // due before whatever the timer waits for
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}
