package tpcc

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ProgressStatus is one observation of a long driver phase (load,
// import): units done of a total, rows written of those expected, and
// how long it has run. FormatProgress renders it; load and import print
// the same line.
type ProgressStatus struct {
	Phase       string // "load", "import": the line's prefix
	Unit        string // what Done counts: "warehouses", "tables"
	Done, Total int64
	// Rows written of RowsTotal expected. RowsAtStart were already there
	// when the phase started (a resumed import's jobs): not in the rate.
	Rows, RowsTotal, RowsAtStart int64
	Estimated                    bool // Rows is an estimate (import: from the jobs' fractions)
	Elapsed                      time.Duration
	Final                        bool // the phase is over: elapsed instead of ETA
}

// FormatProgress is "load: 3/10 warehouses, 1.50M/5.00M rows (30.0%),
// 250.0k rows/s, ETA 14s"; a final status ends with "elapsed 20s". The
// rate is the average since the phase started, so the ETA is the time
// the remaining rows take at it ("?" before the first row).
func FormatProgress(s ProgressStatus) string {
	approx := ""
	if s.Estimated {
		approx = "~"
	}
	pct := 100.0
	if s.RowsTotal > 0 {
		pct = min(100*float64(s.Rows)/float64(s.RowsTotal), 100)
	}
	rate := 0.0
	if s.Elapsed > 0 && s.Rows > s.RowsAtStart {
		rate = float64(s.Rows-s.RowsAtStart) / s.Elapsed.Seconds()
	}
	var tail string
	switch {
	case s.Final:
		tail = "elapsed " + roundDuration(s.Elapsed).String()
	case s.Rows >= s.RowsTotal:
		tail = "ETA 0s"
	case rate > 0:
		tail = "ETA " + roundDuration(time.Duration(float64(s.RowsTotal-s.Rows)/rate*float64(time.Second))).String()
	default:
		tail = "ETA ?"
	}
	return fmt.Sprintf("%s: %d/%d %s, %s%s/%s rows (%.1f%%), %s rows/s, %s",
		s.Phase, s.Done, s.Total, s.Unit, approx, Human(float64(s.Rows)), Human(float64(s.RowsTotal)), pct, Human(rate), tail)
}

// roundDuration keeps a progress line's durations short: milliseconds
// under 10s, seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// ProgressPrinter shows a status line. On a terminal it is redrawn in
// place (carriage return, erase line) and other lines are printed above
// it; elsewhere (a pipe, a file, an orchestrator's log over SSH) every
// status is a plain line of its own, so logs stay line-oriented.
type ProgressPrinter struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	drawn    bool // a status line is on screen without its newline
}

// NewProgressPrinter prints to w, redrawing in place when terminal.
func NewProgressPrinter(w io.Writer, terminal bool) *ProgressPrinter {
	return &ProgressPrinter{w: w, terminal: terminal}
}

// eraseLine returns to the line's start and clears it (ANSI EL).
const eraseLine = "\r\x1b[K"

// noWrap and wrap turn the terminal's autowrap off and on (DECAWM).
const (
	noWrap = "\x1b[?7l"
	wrap   = "\x1b[?7h"
)

// Status shows the current status line.
func (p *ProgressPrinter) Status(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.terminal {
		fmt.Fprintln(p.w, line)
		return
	}
	// Autowrap off while drawing (DECAWM): a line wider than the terminal
	// is cut at its edge instead of wrapping onto a second row, which the
	// next carriage return could not erase.
	io.WriteString(p.w, eraseLine+noWrap+line+wrap)
	p.drawn = true
}

// Println prints a line that stays (a message, a table's state). On a
// terminal it replaces the status line, which the next status redraws.
func (p *ProgressPrinter) Println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, eraseLine)
		p.drawn = false
	}
	fmt.Fprintln(p.w, line)
}

// Done prints the last status, which stays.
func (p *ProgressPrinter) Done(line string) { p.Println(line) }

// startProgress prints load's status every interval until the returned
// stop is called, and the final one then.
func startProgress(w io.Writer, terminal bool, interval time.Duration, start time.Time, rows, wDone *atomic.Int64, expected int64, warehouses int) (stop func()) {
	if w == nil {
		return func() {}
	}
	if interval <= 0 {
		interval = time.Second
	}
	p := NewProgressPrinter(w, terminal)
	status := func(final bool) string {
		return FormatProgress(ProgressStatus{Phase: "load", Unit: "warehouses", Done: wDone.Load(), Total: int64(warehouses),
			Rows: rows.Load(), RowsTotal: expected, Elapsed: time.Since(start), Final: final})
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.Status(status(false))
			case <-quit:
				p.Done(status(true))
				return
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// Human renders 1234567 as "1.23M".
func Human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// Close ends a status line left on a terminal (the phase failed), so
// what is printed next starts on a line of its own.
func (p *ProgressPrinter) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\n")
		p.drawn = false
	}
}
