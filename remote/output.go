package remote

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/benchrig/benchrig/internal/termsafe"
)

// Console writes live command output from many hosts to one writer, one
// whole line at a time, each prefixed with the host name padded to the
// longest name ("node-01 | ..."), so output from hosts running at once
// interleaves by line, never mid-line, and every line says where it came
// from.
type Console struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	// notices, if set, also gets the one line that says a stream was cut
	// (LiveHead): the operator's screen when w is only a log.
	notices io.Writer
}

// NewConsole returns a Console writing to w (nil: output is discarded)
// that pads prefixes to the longest of names.
func NewConsole(w io.Writer, names []string) *Console {
	c := &Console{w: w}
	for _, n := range names {
		c.width = max(c.width, len(n))
	}
	return c
}

// Line writes one line for host, its terminal controls made visible
// (termsafe): the console is the operator's terminal, not the host's.
func (c *Console) Line(host, line string) {
	if c == nil || c.w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(c.w, "%-*s | %s\n", c.width, host, termsafe.String(line))
}

// notice writes line for host to the console and, once per stream, to
// the notices writer.
func (c *Console) notice(host, line string) {
	c.Line(host, line)
	if c.notices != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
		fmt.Fprintf(c.notices, "%s: %s\n", host, termsafe.String(line))
	}
}

// LiveHead and LiveTail bound what one stream of one command (a step's,
// or one follow of a job's log) may put on the console and so in the run
// directory's output.log: a host may print gigabytes (hostile, or a
// runaway loop). The first LiveHead bytes of lines are shown as they
// come, then only the last LiveTail bytes are kept, shown at the
// stream's end after a line saying how much was dropped. A 30-minute
// run's progress is about 1 MB; the host's own log keeps it all, and
// logs/<stage>/<host>.log its end (CaptureBytes).
const (
	LiveHead = 4 << 20
	LiveTail = 256 << 10
)

// maxLine bounds a line kept while waiting for its newline: a command
// printing megabytes without one (a progress bar, binary data) is shown
// in pieces rather than buffered without limit.
const maxLine = 64 << 10

// Writer returns a writer for one output stream of host; Close it to
// flush a last line that had no newline.
func (c *Console) Writer(host string) *LineWriter { return &LineWriter{c: c, host: host} }

// LineWriter splits a stream into lines for a Console, within LiveHead
// and LiveTail.
type LineWriter struct {
	c    *Console
	host string
	buf  []byte
	// shown counts the bytes of lines shown; past LiveHead, lines go to
	// tail (at most LiveTail bytes of the last ones) and what falls out
	// of it is counted as dropped.
	shown, tailBytes, dropped, droppedLines int64
	tail                                    [][]byte
}

func (w *LineWriter) Write(p []byte) (int, error) {
	if w.c == nil || w.c.w == nil {
		return len(p), nil
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			if len(w.buf) >= maxLine {
				w.emit()
			}
			break
		}
		w.buf = append(w.buf, p[:i]...)
		w.emit()
		p = p[i+1:]
	}
	return n, nil
}

func (w *LineWriter) emit() {
	defer func() { w.buf = w.buf[:0] }()
	if w.shown < LiveHead {
		w.shown += int64(len(w.buf)) + 1
		w.c.Line(w.host, strings.TrimRight(string(w.buf), "\r"))
		return
	}
	w.tail = append(w.tail, append([]byte(nil), w.buf...))
	w.tailBytes += int64(len(w.buf)) + 1
	for w.tailBytes > LiveTail {
		w.tailBytes -= int64(len(w.tail[0])) + 1
		w.dropped += int64(len(w.tail[0])) + 1
		w.droppedLines++
		w.tail[0] = nil
		w.tail = w.tail[1:]
	}
}

// Close writes a pending partial line. A nil LineWriter (no live output)
// closes as a no-op.
func (w *LineWriter) Close() error {
	if w == nil {
		return nil
	}
	if w.c == nil || w.c.w == nil {
		return nil
	}
	if len(w.buf) > 0 {
		w.emit()
	}
	if w.dropped > 0 {
		w.c.notice(w.host, fmt.Sprintf("[benchrig: %d bytes (%d lines) of this output dropped here: only the first %d and the last %d bytes of a stream are kept]",
			w.dropped, w.droppedLines, w.shown, w.tailBytes))
	}
	for _, l := range w.tail {
		w.c.Line(w.host, strings.TrimRight(string(l), "\r"))
	}
	w.tail, w.tailBytes, w.dropped, w.droppedLines = nil, 0, 0, 0
	return nil
}

// tailBuffer keeps the last max bytes written to it, so a command that
// prints gigabytes costs bounded memory while its end (where errors are)
// is kept for Result and ExitError.
type tailBuffer struct {
	max     int
	buf     []byte
	dropped int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		cut := len(t.buf) - t.max
		t.dropped += int64(cut)
		t.buf = append(t.buf[:0], t.buf[cut:]...)
	}
	return len(p), nil
}

// Bytes is the kept tail (a copy).
func (t *tailBuffer) Bytes() []byte {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return append([]byte(nil), b...)
}

// lastLines is the last n lines of b, for error messages.
func lastLines(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
