package hostmetrics

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/golden"
)

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// fakeSys is a sysfs with vda (a disk) and loop0 (not storage).
func fakeSys(t testing.TB) string {
	dir := t.TempDir()
	for _, d := range []string{"vda", "loop0"} {
		if err := os.MkdirAll(filepath.Join(dir, "block", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Two hand-written /proc snapshots two seconds apart; every figure below
// is worked out from them by hand.
func TestDiffKnownSnapshots(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	sys := fakeSys(t)
	a, err := (&Sampler{Proc: "testdata/proc1", Sys: sys, Now: func() time.Time { return t0 }}).read()
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&Sampler{Proc: "testdata/proc2", Sys: sys, Now: func() time.Time { return t0.Add(2 * time.Second) }}).read()
	if err != nil {
		t.Fatal(err)
	}
	s := diff("h1", a, b)
	// CPU ticks: total 10000 → 11000. user+nice +600, system +200, idle
	// +100, iowait +50, irq+softirq +40, steal +10.
	want := CPU{CPUs: 2, User: 60, System: 20, IOWait: 5, IRQ: 4, Steal: 1, Idle: 10}
	if s.CPU != want || !near(s.CPU.Busy(), 85) {
		t.Errorf("CPU = %+v (busy %v), want %+v (busy 85)", s.CPU, s.CPU.Busy(), want)
	}
	if s.Mem != (Mem{Total: 8000000 * 1024, Available: 5000000 * 1024, SwapUsed: 600 * 1024}) || s.Load1 != 0.5 {
		t.Errorf("mem = %+v load %v", s.Mem, s.Load1)
	}
	// vda: +2000 sectors read, +8000 written, +100 reads, +400 writes,
	// +500 ms busy, over 2 s. loop0 and the partition vda1 are left out.
	if len(s.Disks) != 1 || s.Disks[0] != (Disk{Name: "vda", ReadBytes: 512000, WriteBytes: 2048000, Reads: 50, Writes: 200, Utilization: 25}) {
		t.Errorf("disks = %+v", s.Disks)
	}
	// eth0: +200000 B and +500 packets in, +400000 B and +1000 out; lo is left out.
	if len(s.Net) != 1 || s.Net[0] != (Net{Name: "eth0", RxBytes: 100000, TxBytes: 200000, RxPackets: 250, TxPackets: 500}) {
		t.Errorf("net = %+v", s.Net)
	}
	if s.Schema != Schema || s.Host != "h1" || s.Interval != 2 {
		t.Errorf("header = %q %q %v", s.Schema, s.Host, s.Interval)
	}
	// Counters that go backwards give zero, not a huge rate.
	a.at, b.at = b.at, a.at
	if r := diff("h1", b, a); len(r.Disks) != 1 || r.Disks[0].ReadBytes != 0 || r.CPU != (CPU{}) {
		t.Errorf("reversed counters: %+v %+v", r.CPU, r.Disks)
	}
}

// The real /proc of this machine, through the real Run loop and Read.
func TestRunRealProc(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 650*time.Millisecond)
	defer cancel()
	var buf bytes.Buffer
	if err := (&Sampler{Host: "here"}).Run(ctx, 200*time.Millisecond, &buf); err != nil {
		t.Fatal(err)
	}
	samples, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 2 {
		t.Fatalf("%d samples in 650 ms at 200 ms", len(samples))
	}
	for _, s := range samples {
		c := s.CPU
		sum := c.User + c.System + c.IOWait + c.IRQ + c.Steal + c.Idle
		if c.CPUs < 1 || sum < 99.9 || sum > 100.1 || s.Mem.Total == 0 || s.Mem.Available > s.Mem.Total || s.Interval < 0.1 {
			t.Errorf("implausible sample %+v", s)
		}
	}
}

// A CPU hog pinned in-process (one spinning goroutine per CPU, bounded
// time) saturates this host; measured against an idle database host's
// samples, the run is client-bound.
func TestCPUHogIsClientBound(t *testing.T) {
	if testing.Short() {
		t.Skip("spins every CPU for 2 s")
	}
	var stop atomic.Bool
	n := runtime.NumCPU()
	done := make(chan struct{})
	for range n {
		go func() {
			x := 0
			for !stop.Load() {
				x++
			}
			_ = x
			done <- struct{}{}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	var buf bytes.Buffer
	err := (&Sampler{Host: "w1"}).Run(ctx, 200*time.Millisecond, &buf)
	cancel()
	stop.Store(true)
	for range n {
		<-done
	}
	if err != nil {
		t.Fatal(err)
	}
	hot, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w := Stats("w1", hot, time.Time{}, time.Time{})
	if w.MedianBusy < SaturatedBusy {
		t.Fatalf("CPU hog on %d CPUs: median busy %.1f%% over %d samples, want >= %v", n, w.MedianBusy, w.Samples, SaturatedBusy)
	}
	f, err := os.Open("testdata/pg1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idle, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	got := ClientBound([]HostStats{w}, []HostStats{Stats("pg1", idle, time.Time{}, time.Time{})})
	if len(got) != 1 || got[0].Kind != "client-bound" || !strings.Contains(got[0].Message, "w1") || !strings.Contains(got[0].Message, "pg1 26%") {
		t.Errorf("findings = %+v", got)
	}
}

func TestClientBound(t *testing.T) {
	h := func(name string, busy float64, n int) HostStats {
		return HostStats{Host: name, Samples: n, MedianBusy: busy, MaxBusy: busy}
	}
	for _, tc := range []struct {
		name     string
		workload []HostStats
		db       []HostStats
		want     bool
	}{
		{"saturated client, idle db", []HostStats{h("w1", 97, 60)}, []HostStats{h("pg1", 40, 60), h("pg2", 20, 60)}, true},
		{"one of two clients saturated", []HostStats{h("w1", 50, 60), h("w2", 92, 60)}, []HostStats{h("pg1", 40, 60)}, true},
		{"threshold is inclusive", []HostStats{h("w1", 90, 60)}, []HostStats{h("pg1", 69.9, 60)}, true},
		{"client below saturation", []HostStats{h("w1", 89.9, 60)}, []HostStats{h("pg1", 10, 60)}, false},
		{"database busy too", []HostStats{h("w1", 99, 60)}, []HostStats{h("pg1", 30, 60), h("pg2", 75, 60)}, false},
		{"too few samples", []HostStats{h("w1", 99, 4)}, []HostStats{h("pg1", 10, 60)}, false},
		{"database not sampled", []HostStats{h("w1", 99, 60)}, []HostStats{h("pg1", 10, 2)}, false},
		{"no database hosts", []HostStats{h("w1", 99, 60)}, nil, false},
	} {
		got := ClientBound(tc.workload, tc.db)
		if (len(got) > 0) != tc.want {
			t.Errorf("%s: %+v", tc.name, got)
		}
	}
}

func TestStatsWindow(t *testing.T) {
	f, _ := os.Open("testdata/pg1.jsonl")
	defer f.Close()
	ss, err := Read(f)
	if err != nil || len(ss) != 10 {
		t.Fatalf("%d samples, %v", len(ss), err)
	}
	all := Stats("pg1", ss, time.Time{}, time.Time{})
	// busy = user+system = 22..31; sorted 22 23 24 25 25 26 27 28 30 31.
	if all.Samples != 10 || !near(all.MedianBusy, 25.5) || !near(all.MaxBusy, 31) {
		t.Errorf("all = %+v", all)
	}
	win := Stats("pg1", ss, ss[2].Time, ss[4].Time) // 31 28 24
	if win.Samples != 3 || !near(win.MedianBusy, 28) {
		t.Errorf("window = %+v", win)
	}
}

func TestRead(t *testing.T) {
	good := `{"schema":"benchrig.hoststat/v1","host":"a","t":"2026-12-03T08:00:01Z","cpu":{"user":1}}` + "\n"
	good2 := strings.Replace(good, "08:00:01Z", "08:00:02Z", 1) // a time after good's: duplicates are refused
	ss, err := Read(strings.NewReader(good + good2 + `{"schema":"benchrig.hos`))
	if err != nil || len(ss) != 2 {
		t.Errorf("torn last line: %d samples, %v", len(ss), err)
	}
	if _, err := Read(strings.NewReader(good + "{bad\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad line: %v", err)
	}
	if _, err := Read(strings.NewReader(`{"schema":"benchrig.hoststat/v2"}` + "\n")); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("other schema: %v", err)
	}
}

func TestPlots(t *testing.T) {
	f, _ := os.Open("testdata/pg1.jsonl")
	defer f.Close()
	ss, _ := Read(f)
	var buf bytes.Buffer
	if err := PlotCPU(&buf, []Host{{"pg1", ss}, {"w1", ss[:5]}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "pg1: CPU") || !strings.Contains(buf.String(), "w1: CPU") {
		t.Error("a host's panel is missing")
	}
	golden.Check(t, "cpu.svg", buf.Bytes())
	buf.Reset()
	if err := PlotHost(&buf, Host{"pg1", ss}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "pg1.svg", buf.Bytes())
}

func TestRunRejectsTinyInterval(t *testing.T) {
	if err := (&Sampler{}).Run(context.Background(), time.Millisecond, &bytes.Buffer{}); err == nil {
		t.Error("1ms interval accepted")
	}
}

func TestReadFile(t *testing.T) {
	ss, err := ReadFile("testdata/pg1.jsonl")
	if err != nil || len(ss) != 10 || ss[0].Host != "pg1" {
		t.Errorf("%d samples, %v", len(ss), err)
	}
	if _, err := ReadFile("testdata/none.jsonl"); err == nil {
		t.Error("missing file read")
	}
}
