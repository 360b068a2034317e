package remote_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
)

func golden(t *testing.T, name string, got []byte) { t.Helper(); remote.Golden(t, name, got) }

// TestConsoleGolden: lines split across writes, a missing final newline,
// CRLF, and interleaved hosts each come out as whole prefixed lines.
func TestConsoleGolden(t *testing.T) {
	var b bytes.Buffer
	c := remote.NewConsole(&b, []string{"node-1", "workload-01"})
	w1, w2 := c.Writer("node-1"), c.Writer("workload-01")
	w1.Write([]byte("first par"))
	w2.Write([]byte("other host\r\nsecond line\n"))
	w1.Write([]byte("t of a line\nand a tail"))
	w2.Write([]byte("\n\nafter an empty line\n"))
	w1.Close()
	w2.Close()
	golden(t, "console.golden", b.Bytes())
}

func TestSummaryGolden(t *testing.T) {
	outs := []remote.Outcome{
		{Host: "node-01", Duration: 210 * time.Millisecond},
		{Host: "node-02", Duration: 200 * time.Millisecond, Err: &remote.ExitError{Host: "node-02", Cmd: "false", Code: 1}},
		{Host: "node-03", Duration: 5 * time.Second, Err: &remote.TimeoutError{Host: "node-03", Cmd: "sleep 60", Timeout: 5 * time.Second}},
		{Host: "workload-1", Duration: 3 * time.Second, Err: &remote.TransportError{Host: "workload-1", Op: "dial 10.0.0.9:22", Err: errors.New("connection refused")}},
		{Host: "workload-2", Err: context.Canceled},
	}
	var b bytes.Buffer
	if err := remote.WriteSummary(&b, outs); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden", b.Bytes())
}

func TestEachOrderAndLimit(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e", "f"}
	var running, peak atomic.Int32
	outs := remote.Each(context.Background(), hosts, 2, func(ctx context.Context, h string) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		// Earlier hosts finish later, so completion order is not input order.
		time.Sleep(time.Duration(len(hosts)-int(h[0]-'a')) * 10 * time.Millisecond)
		running.Add(-1)
		if h == "c" {
			return errors.New("c failed")
		}
		return nil
	})
	for i, o := range outs {
		if o.Host != hosts[i] {
			t.Fatalf("outcome %d is %s: not in input order", i, o.Host)
		}
	}
	if p := peak.Load(); p > 2 {
		t.Errorf("peak concurrency %d > limit 2", p)
	}
	if err := remote.Failed(outs); err == nil || err.Error() != "c failed" {
		t.Errorf("Failed = %v", err)
	}
	if outs[2].Status() != "failed" || outs[0].Status() != "ok" {
		t.Errorf("statuses %q %q", outs[2].Status(), outs[0].Status())
	}
}

func TestEachSummarized(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		hosts   []string
		fail    string
		summary bool
	}{
		{[]string{"a"}, "", false},
		{[]string{"a"}, "a", true},
		{[]string{"a", "b"}, "", true},
		{[]string{"a", "b"}, "b", true},
	} {
		var b strings.Builder
		err := remote.EachSummarized(context.Background(), &b, tc.hosts, 0, func(_ context.Context, h string) error {
			if h == tc.fail {
				return boom
			}
			return nil
		})
		if (tc.fail != "") != errors.Is(err, boom) {
			t.Errorf("%v fail %q: err %v", tc.hosts, tc.fail, err)
		}
		if got := strings.Contains(b.String(), "hosts:"); got != tc.summary {
			t.Errorf("%v fail %q: summary %v, want %v:\n%s", tc.hosts, tc.fail, got, tc.summary, b.String())
		}
	}
}

// TestConsoleBoundsAStream: a host printing 64 MiB of ordinary lines puts
// at most LiveHead + LiveTail bytes (and their prefixes) on the console,
// its first and last lines among them, with one line saying how much was
// dropped, which the notices writer (the screen) gets once. Without the
// bound all 64 MiB reached output.log.
func TestConsoleBoundsAStream(t *testing.T) {
	var out, screen bytes.Buffer
	c := remote.NewConsole(&out, []string{"load2"})
	remote.SetNotices(c, &screen)
	w := c.Writer("load2")
	line := []byte(strings.Repeat("x", 1023) + "\n")
	w.Write([]byte("the first line\n"))
	for i := 0; i < 64<<10; i++ {
		w.Write(line)
	}
	w.Write([]byte("the last line\n"))
	w.Close()
	prefix := int64(len("load2 | "))
	if max := int64(remote.LiveHead+remote.LiveTail) + (remote.LiveHead+remote.LiveTail)/1024*prefix + 4096; int64(out.Len()) > max {
		t.Errorf("%d bytes reached the console, more than %d", out.Len(), max)
	}
	text := out.String()
	for _, want := range []string{"load2 | the first line\n", "load2 | the last line\n", "of this output dropped here"} {
		if !strings.Contains(text, want) {
			t.Errorf("the console lacks %q", want)
		}
	}
	if n := strings.Count(screen.String(), "dropped"); n != 1 {
		t.Errorf("the screen got %d notices, want 1:\n%s", n, screen.String())
	}
	// A short stream is untouched.
	out.Reset()
	w = c.Writer("load2")
	w.Write([]byte("a\nb\n"))
	w.Close()
	if out.String() != "load2 | a\nload2 | b\n" {
		t.Errorf("a short stream: %q", out.String())
	}
}
