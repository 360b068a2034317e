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
		s.Phase, s.Done, s.Total, s.Unit, approx, human(float64(s.Rows)), human(float64(s.RowsTotal)), pct, human(rate), tail)
}

// roundDuration keeps a progress line's durations short: milliseconds
// under 10s, seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// progressPrinter shows a status line. On a terminal it is redrawn in
// place (carriage return, erase line) and other lines are printed above
// it; elsewhere (a pipe, a file, an orchestrator's log over SSH) every
// status is a plain line of its own, so logs stay line-oriented.
type progressPrinter struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	drawn    bool // a status line is on screen without its newline
}

func newProgressPrinter(w io.Writer, terminal bool) *progressPrinter {
	return &progressPrinter{w: w, terminal: terminal}
}

// eraseLine returns to the line's start and clears it (ANSI EL).
const eraseLine = "\r\x1b[K"

// noWrap and wrap turn the terminal's autowrap off and on (DECAWM).
const (
	noWrap = "\x1b[?7l"
	wrap   = "\x1b[?7h"
)

// status shows the current status line.
func (p *progressPrinter) status(line string) {
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

// println prints a line that stays (a message, a table's state). On a
// terminal it replaces the status line, which the next status redraws.
func (p *progressPrinter) println(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, eraseLine)
		p.drawn = false
	}
	fmt.Fprintln(p.w, line)
}

// done prints the last status, which stays.
func (p *progressPrinter) done(line string) { p.println(line) }

// startProgress prints load's status every interval until the returned
// stop is called, and the final one then.
func startProgress(w io.Writer, terminal bool, interval time.Duration, start time.Time, rows, wDone *atomic.Int64, expected int64, warehouses int) (stop func()) {
	if w == nil {
		return func() {}
	}
	if interval <= 0 {
		interval = time.Second
	}
	p := newProgressPrinter(w, terminal)
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
				p.status(status(false))
			case <-quit:
				p.done(status(true))
				return
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// importTableRows is how many rows each table holds per warehouse (item:
// in all), to weigh the IMPORT jobs' fractions into one figure (clause
// 4.3.3.1's cardinalities; order_line averages 10 lines per order).
var importTableRows = map[string]int64{
	"warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
	"order": 30000, "new_order": 9000, "order_line": 300000, "stock": 100000,
}

// importRowsTotal is the rows of tables for w warehouses.
func importRowsTotal(tables []string, w int) int64 {
	var n int64
	for _, t := range tables {
		n += tableRowsFor(t, w)
	}
	return n
}

func tableRowsFor(table string, w int) int64 {
	if table == "item" {
		return numItems
	}
	return importTableRows[table] * int64(w)
}

// importStatus sums the tables' jobs into one status: a table counts as
// done when its job succeeded, and for its fraction of rows meanwhile.
func importStatus(tables []string, w int, jobs map[string]ImportJob, elapsed time.Duration, rowsAtStart int64) ProgressStatus {
	s := ProgressStatus{Phase: "import", Unit: "tables", Total: int64(len(tables)),
		RowsTotal: importRowsTotal(tables, w), RowsAtStart: rowsAtStart, Estimated: true, Elapsed: elapsed}
	for _, t := range tables {
		j, ok := jobs[t]
		if !ok {
			continue
		}
		f := j.Fraction
		if j.Status == "succeeded" {
			s.Done++
			f = 1
		}
		s.Rows += int64(f * float64(tableRowsFor(t, w)))
	}
	return s
}

// human renders 1234567 as "1.23M".
func human(v float64) string {
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

// close ends a status line left on a terminal (the phase failed), so
// what is printed next starts on a line of its own.
func (p *progressPrinter) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		io.WriteString(p.w, "\n")
		p.drawn = false
	}
}
