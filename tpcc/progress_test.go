package tpcc

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFormatProgress(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    ProgressStatus
		want string
	}{
		{"start", ProgressStatus{Phase: "load", Unit: "warehouses", Total: 10, RowsTotal: 4990110},
			"load: 0/10 warehouses, 0/4.99M rows (0.0%), 0 rows/s, ETA ?"},
		{"under way", ProgressStatus{Phase: "load", Unit: "warehouses", Done: 3, Total: 10, Rows: 1500000, RowsTotal: 5000000, Elapsed: 6 * time.Second},
			"load: 3/10 warehouses, 1.50M/5.00M rows (30.0%), 250.0k rows/s, ETA 14s"},
		{"long ETA", ProgressStatus{Phase: "load", Unit: "warehouses", Done: 1, Total: 1000, Rows: 1000000, RowsTotal: 500000000, Elapsed: 20 * time.Second},
			"load: 1/1000 warehouses, 1.00M/500.00M rows (0.2%), 50.0k rows/s, ETA 2h46m20s"},
		{"sub-second ETA", ProgressStatus{Phase: "load", Unit: "warehouses", Done: 9, Total: 10, Rows: 9990, RowsTotal: 10000, Elapsed: 999 * time.Millisecond},
			"load: 9/10 warehouses, 10.0k/10.0k rows (99.9%), 10.0k rows/s, ETA 1ms"},
		{"more rows than expected", ProgressStatus{Phase: "load", Unit: "warehouses", Done: 10, Total: 10, Rows: 5000100, RowsTotal: 5000000, Elapsed: 20 * time.Second},
			"load: 10/10 warehouses, 5.00M/5.00M rows (100.0%), 250.0k rows/s, ETA 0s"},
		{"final", ProgressStatus{Phase: "load", Unit: "warehouses", Done: 10, Total: 10, Rows: 5000000, RowsTotal: 5000000, Elapsed: 20*time.Second + 400*time.Millisecond, Final: true},
			"load: 10/10 warehouses, 5.00M/5.00M rows (100.0%), 245.1k rows/s, elapsed 20s"},
		{"import resumed", ProgressStatus{Phase: "import", Unit: "tables", Done: 4, Total: 9, Rows: 3000000, RowsAtStart: 2000000, RowsTotal: 5000000, Estimated: true, Elapsed: 10 * time.Second},
			"import: 4/9 tables, ~3.00M/5.00M rows (60.0%), 100.0k rows/s, ETA 20s"},
		{"nothing expected", ProgressStatus{Phase: "load", Unit: "warehouses", Final: true, Elapsed: time.Millisecond},
			"load: 0/0 warehouses, 0/0 rows (100.0%), 0 rows/s, elapsed 1ms"},
	} {
		if got := FormatProgress(tc.s); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// checkPlainProgress: progress for a non-terminal is whole lines, with no
// carriage return or escape sequence, and its last status line (the
// final one, with the elapsed time) starts with final.
func checkPlainProgress(t *testing.T, out, final string) {
	t.Helper()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("progress for a non-terminal has control characters: %q", out)
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("progress does not end its line: %q", out)
	}
	var last string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " rows/s, ") {
			last = l
		}
	}
	if !strings.HasPrefix(last, final) || !strings.Contains(last, "elapsed ") {
		t.Errorf("last status line %q, want %q... elapsed", last, final)
	}
}

func TestProgressPrinter(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		want     string
	}{
		{false, "load: 1\nload: 2\nadding keys\nload: 3\nload: done\n"},
		{true, "\r\x1b[K\x1b[?7lload: 1\x1b[?7h\r\x1b[K\x1b[?7lload: 2\x1b[?7h\r\x1b[Kadding keys\n\r\x1b[K\x1b[?7lload: 3\x1b[?7h\r\x1b[Kload: done\n"},
	} {
		var b bytes.Buffer
		p := NewProgressPrinter(&b, tc.terminal)
		p.Status("load: 1")
		p.Status("load: 2")
		p.Println("adding keys")
		p.Status("load: 3")
		p.Done("load: done")
		p.Close() // nothing left to end
		if b.String() != tc.want {
			t.Errorf("terminal=%v:\n got %q\nwant %q", tc.terminal, b.String(), tc.want)
		}
	}
	// A phase that fails with its status on screen ends the line.
	var b bytes.Buffer
	p := NewProgressPrinter(&b, true)
	p.Status("import: 1/9 tables")
	p.Close()
	if b.String() != "\r\x1b[K\x1b[?7limport: 1/9 tables\x1b[?7h\n" {
		t.Errorf("close: %q", b.String())
	}
}

// TestStartProgressPlain: load's periodic progress to a non-terminal is
// plain lines, one per interval, and a final one.
func TestStartProgressPlain(t *testing.T) {
	var rows, done atomic.Int64
	var b bytes.Buffer
	stop := startProgress(&b, false, 10*time.Millisecond, time.Now(), &rows, &done, 1000, 2)
	for i := range 5 {
		rows.Add(200)
		if i%2 == 1 {
			done.Add(1)
		}
		time.Sleep(15 * time.Millisecond)
	}
	stop()
	out := b.String()
	checkPlainProgress(t, out, "load: 2/2 warehouses, 1.0k/1.0k rows (100.0%), ")
	if n := strings.Count(out, "\n"); n < 2 {
		t.Errorf("%d lines, want periodic ones and the final one:\n%s", n, out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "load: ") {
			t.Errorf("line %q is not a progress line", l)
		}
	}
}
