package histogram

import (
	"slices"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Recorder keeps, per operation name, the histogram of the current tick and
// the cumulative one since the last Reset. It is safe for concurrent use:
// executors Record while one goroutine Ticks.
type Recorder struct {
	mu  sync.Mutex // guards ops; each Op has its own lock for recording
	ops map[string]*Op
	max time.Duration // highest trackable latency
}

// Op is the recording handle of one operation. Callers keep the handle so
// the hot path is one mutex and one bucket increment, no map lookup.
type Op struct {
	name string
	max  time.Duration

	mu       sync.Mutex
	tick     *hdr.Histogram // since prevTick
	cum      *hdr.Histogram // since the last Reset
	prevTick time.Time
}

// NewRecorder returns a Recorder with names pre-registered, so that every
// one of them appears in every tick even if it recorded nothing (readers
// expect all five TPC-C names). Intervals start at start.
func NewRecorder(start time.Time, names ...string) *Recorder {
	return NewRecorderMax(start, MaxLatency, names...)
}

// NewRecorderMax is NewRecorder with histograms tracking up to max
// (--histograms-max-latency).
func NewRecorderMax(start time.Time, max time.Duration, names ...string) *Recorder {
	r := &Recorder{ops: make(map[string]*Op, len(names)), max: max}
	for _, n := range names {
		r.ops[n] = newOp(n, start, max)
	}
	return r
}

func newOp(name string, start time.Time, max time.Duration) *Op {
	return &Op{name: name, max: max, tick: NewHistogramMax(max), cum: NewHistogramMax(max), prevTick: start}
}

// Op returns the handle for name, registering it (starting at now) if new.
func (r *Recorder) Op(name string, now time.Time) *Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	op, ok := r.ops[name]
	if !ok {
		op = newOp(name, now, r.max)
		r.ops[name] = op
	}
	return op
}

// Name is the operation's name.
func (o *Op) Name() string { return o.name }

// Record adds one latency, clamped into [MinLatency, max] as
// CockroachDB does, so no observation is ever dropped.
func (o *Op) Record(d time.Duration) {
	d = min(max(d, MinLatency), o.max)
	o.mu.Lock()
	// Cannot fail: d is inside the histogram's range.
	_ = o.tick.RecordValue(d.Nanoseconds())
	o.mu.Unlock()
}

// Interval is what one Tick reports for one operation.
type Interval struct {
	Name       string
	Hist       *hdr.Histogram // delta of this tick, owned by the caller
	Cumulative *hdr.Histogram // copy of the cumulative histogram, owned by the caller
	Elapsed    time.Duration  // since this operation's previous tick (or Reset)
	Now        time.Time
}

// Tick returns the wire form of the interval.
func (iv Interval) Tick() Tick {
	return Tick{Name: iv.Name, Hist: Export(iv.Hist), Elapsed: iv.Elapsed, Now: iv.Now}
}

// Tick closes the current interval of every operation at now and returns
// them sorted by name (the order CockroachDB prints them in).
func (r *Recorder) Tick(now time.Time) []Interval {
	ops := r.sorted()
	out := make([]Interval, 0, len(ops))
	for _, op := range ops {
		fresh := NewHistogramMax(op.max) // allocated outside the lock
		op.mu.Lock()
		delta := op.tick
		op.tick = fresh
		op.cum.Merge(delta)
		cum := op.cum.Clone()
		elapsed := now.Sub(op.prevTick)
		op.prevTick = now
		op.mu.Unlock()
		out = append(out, Interval{Name: op.name, Hist: delta, Cumulative: cum, Elapsed: elapsed, Now: now})
	}
	return out
}

// Reset discards everything recorded so far and starts new intervals at
// now: the end of the ramp-up period, whose latencies must not count.
func (r *Recorder) Reset(now time.Time) {
	for _, op := range r.sorted() {
		op.mu.Lock()
		op.tick.Reset()
		op.cum.Reset()
		op.prevTick = now
		op.mu.Unlock()
	}
}

func (r *Recorder) sorted() []*Op {
	r.mu.Lock()
	ops := make([]*Op, 0, len(r.ops))
	for _, op := range r.ops {
		ops = append(ops, op)
	}
	r.mu.Unlock()
	slices.SortFunc(ops, func(a, b *Op) int { return strings.Compare(a.name, b.name) })
	return ops
}
