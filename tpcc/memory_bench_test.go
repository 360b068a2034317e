package tpcc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// waitMemSpec is one wait-mode run measured in a child process, so that
// each run's RSS is its own and not what an earlier run left behind.
type waitMemSpec struct {
	URL        string
	Warehouses int // virtual: 10 terminals each
	Loaded     int // warehouses really in the database (benchOnlyLoaded)
	Conns      int // 0: Run's default
	Duration   time.Duration
}

// waitMemResult is what the child measured.
type waitMemResult struct {
	Terminals, Conns   int
	BaseRSS, PeakRSS   int64 // bytes: before Run, and the highest sample during it
	BaseHeap, PeakHeap int64 // Go heap in use (+ stacks), same moments
	// Live figures, taken once at 3/4 of the run after a forced GC that
	// returns freed memory to the OS: what the run holds, without the
	// garbage that GOGC lets accumulate between collections (which the
	// peaks include). Slopes are computed from these: they do not depend
	// on where a GC cycle happened to be.
	LiveRSS, LiveHeap, LiveStack int64
	PeakGoroutines               int
	NewOrders, Errors            int64
	ElapsedSeconds               float64
	MeanNewOrderLatency          float64 // ms
}

const waitMemEnv = "BENCHRIG_WAITMEM_SPEC"

// TestWaitMemoryChild is not a test: BenchmarkWaitMemory runs the test
// binary again with this test selected and a spec in the environment.
func TestWaitMemoryChild(t *testing.T) {
	specJSON := os.Getenv(waitMemEnv)
	if specJSON == "" {
		t.Skip("the child process of BenchmarkWaitMemory")
	}
	var spec waitMemSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		t.Fatal(err)
	}
	heap := func() int64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapInuse + m.StackInuse)
	}
	runtime.GC()
	var res waitMemResult
	res.BaseRSS, res.BaseHeap = rss(t), heap()
	done, sampled := make(chan struct{}), make(chan struct{})
	var started atomic.Int64 // unix ns when the run's executors started
	go func() {
		defer close(sampled)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if st := started.Load(); res.LiveRSS == 0 && st != 0 && time.Since(time.Unix(0, st)) > spec.Duration*3/4 {
					debug.FreeOSMemory() // GC, then return freed pages
					res.LiveRSS, res.LiveHeap = rss(t), heap()
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					res.LiveStack = int64(m.StackInuse)
					if p := os.Getenv("BENCHRIG_WAITMEM_HEAPPROFILE"); p != "" {
						if f, err := os.Create(fmt.Sprintf("%s.%dt.%dc", p, spec.Warehouses*10, spec.Conns)); err == nil {
							_ = pprof.WriteHeapProfile(f)
							f.Close()
						}
					}
					continue
				}
				res.PeakRSS = max(res.PeakRSS, rss(t))
				res.PeakHeap = max(res.PeakHeap, heap())
				res.PeakGoroutines = max(res.PeakGoroutines, runtime.NumGoroutine())
			}
		}
	}()
	cfg := RunConfig{URLs: []string{spec.URL}, Warehouses: spec.Warehouses, Wait: 1, Conns: spec.Conns,
		Duration: spec.Duration, TolerateErrors: true, DisplayEvery: 5 * time.Second, benchOnlyLoaded: spec.Loaded, benchOnlyWarm: true,
		benchOnlyStarted: func() { started.Store(time.Now().UnixNano()) }}
	needs, err := RunNeeds(chosen(cfg))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), chosen(cfg))
	close(done)
	<-sampled
	if err != nil && r == nil {
		t.Fatal(err)
	}
	res.Terminals, res.Conns = needs.Terminals, needs.Conns
	res.NewOrders, res.Errors = r.Counts[NewOrderTxn], r.Errors[NewOrderTxn]+r.Errors[PaymentTxn]
	res.ElapsedSeconds = r.Elapsed.Seconds()
	if h := r.Result.Cumulative[NewOrderTxn.String()]; h != nil {
		res.MeanNewOrderLatency = mean(h)
	}
	b, _ := json.Marshal(res)
	fmt.Printf("WAITMEM %s\n", b)
}

// rss is this process's resident set size (VmRSS).
func rss(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func runWaitMemChild(b *testing.B, spec waitMemSpec) waitMemResult {
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWaitMemoryChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), waitMemEnv+"="+string(js))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if js, ok := strings.CutPrefix(line, "WAITMEM "); ok {
			var r waitMemResult
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				b.Fatal(err)
			}
			return r
		}
	}
	b.Fatalf("child printed no result:\n%s", out)
	return waitMemResult{}
}

// BenchmarkWaitMemory measures what a user at scale pays in memory: real
// wait-mode runs (spec keying and think times) against a real PostgreSQL,
// each in a child process whose RSS and Go heap (in use, with stacks) are
// sampled during the run. Every connection first runs each transaction
// type once (benchOnlyWarm), so it holds what a long run leaves in it.
// Three runs side by side separate the costs:
//
//	A: 10,000 terminals, Run's default connections (WaitTerminalsPerConn)
//	B: 10,000 terminals, 1,000 connections     -> per connection = (B-A)/ΔC
//	C: 30,000 terminals, A's connections       -> per terminal  = (C-A)/ΔT
//
// Slopes use the live figures (after a forced GC at 3/4 of the run); the
// peaks, which include the garbage GOGC=100 lets accumulate, give the
// peak/live factor applied to the extrapolation.
//
// The database holds 4 loaded warehouses and the virtual warehouses'
// terminals are folded onto them (benchOnlyLoaded): terminals, executors
// and connections are all real, only the rows they touch are shared (the
// server is overloaded, which does not change the client's memory).
//
// Reported: peak RSS and heap per terminal at the default ratio
// (everything included: A's growth over its start / 10,000), live bytes
// per connection and per terminal, and the extrapolation to 200,000
// terminals with their default connections (one host of the 100k recipe):
// (A's fixed part + 200,000 x per terminal + connections x per
// connection) x peak/live. It is an extrapolation from 10-30k terminals,
// not a measurement at 200k.
func BenchmarkWaitMemory(b *testing.B) {
	const terminals, loaded = 10000, 4
	srv := pgtest.Start(b, pgtest.NoSync(), pgtest.Setting("max_connections", "1100"))
	url := loadInto(b, srv, loaded)
	for b.Loop() {
		spec := waitMemSpec{URL: url, Warehouses: terminals / 10, Loaded: loaded, Duration: 20 * time.Second}
		a := runWaitMemChild(b, spec)
		spec.Conns = 1000
		if a.Conns >= 1000 {
			spec.Conns = 200
		}
		bb := runWaitMemChild(b, spec)
		spec.Warehouses, spec.Conns = 3*terminals/10, a.Conns
		c := runWaitMemChild(b, spec)
		for _, r := range []waitMemResult{a, bb, c} {
			b.Logf("%d terminals, %d conns: RSS start %.1f, live %.1f, peak %.1f MiB; heap+stacks live %.1f (stacks %.1f), peak %.1f MiB; %d goroutines; %d new orders (mean %.0f ms), %d errors",
				r.Terminals, r.Conns, mib(r.BaseRSS), mib(r.LiveRSS), mib(r.PeakRSS), mib(r.LiveHeap), mib(r.LiveStack), mib(r.PeakHeap), r.PeakGoroutines, r.NewOrders, r.MeanNewOrderLatency, r.Errors)
		}
		dConns := float64(bb.Conns - a.Conns)
		dTerms := float64(c.Terminals - a.Terminals)
		perConnRSS := float64(bb.LiveRSS-a.LiveRSS) / dConns
		perConnHeap := float64(bb.LiveHeap-a.LiveHeap) / dConns
		perTermRSS := float64(c.LiveRSS-a.LiveRSS) / dTerms
		perTermHeap := float64(c.LiveHeap-a.LiveHeap) / dTerms
		fixedRSS := float64(a.LiveRSS) - perConnRSS*float64(a.Conns) - perTermRSS*float64(a.Terminals)
		peakFactor := float64(a.PeakRSS) / float64(a.LiveRSS)
		b.ReportMetric(float64(a.Conns), "default-conns/10k-terminals")
		b.ReportMetric(float64(a.PeakRSS-a.BaseRSS)/float64(a.Terminals), "peak-RSS-B/terminal-incl-conns")
		b.ReportMetric(float64(a.PeakHeap-a.BaseHeap)/float64(a.Terminals), "peak-heap-B/terminal-incl-conns")
		b.ReportMetric(perConnRSS, "live-RSS-B/conn")
		b.ReportMetric(perConnHeap, "live-heap-B/conn")
		b.ReportMetric(perTermRSS, "live-RSS-B/terminal")
		b.ReportMetric(perTermHeap, "live-heap-B/terminal")
		b.ReportMetric(peakFactor, "peak/live-RSS")
		const big = 200000
		bigConns := (big + WaitTerminalsPerConn - 1) / WaitTerminalsPerConn
		b.ReportMetric(peakFactor*(fixedRSS+perTermRSS*big+perConnRSS*float64(bigConns))/(1<<30), "extrapolated-peak-GiB-RSS/200k-terminals")
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// loadInto creates and loads w warehouses in a new database of srv.
func loadInto(b testing.TB, srv *pgtest.Server, w int) string {
	b.Helper()
	url := srv.NewDatabase(b)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := Init(ctx, conn, InitOptions{Warehouses: w, Seed: 42, Dialect: Postgres}); err != nil {
		b.Fatal(err)
	}
	if _, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2, Dialect: Postgres}); err != nil {
		b.Fatal(err)
	}
	return url
}
