package tpcc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// The 100k recipe's workload1 (plans/tpcc-100k.yaml: 100,000 warehouses
// in 27 partitions, affinity 0,5,10,15,20,25, one URL per node of 81):
// what BenchmarkHost200k measures, sized by RunNeeds exactly as the run
// stage sizes the host (222,210 terminals; 200,070 connections with the
// workload profile, 5,589 with the pipelined one).
var host200kPlan = RunConfig{Warehouses: 100000, Partitions: 27, Affinity: []int{0, 5, 10, 15, 20, 25}, Wait: 1, Duration: time.Minute}

const host200kNodes = 81

// hostChild is one process of BenchmarkHost200k: a share of the host's
// URLs (all of each URL's connections) and the matching share of its
// terminals, folded onto Loaded real warehouses.
type hostChild struct {
	Index      int
	URLs       []string
	Warehouses int // virtual: 10 terminals each
	Loaded     int
	Conns      int
	Profile    Profile
	Method     string // --method ("": prepare)
	Warm       bool   // benchOnlyWarm: all five transactions on every connection
	Dir        string // the barrier: ready.<i> written, go awaited
	Settle     time.Duration
	Window     time.Duration
	HeapProf   string // write a heap profile here at the end of the window
	ProfRate   int    // runtime.MemProfileRate (0: Go's default)
}

// hostChildResult is what a child measured of itself.
type hostChildResult struct {
	Index, Terminals, Conns int
	// Seconds from Run's start: the connections dialled ("Initializing
	// N connections" to the profile line, printed once every pool is
	// full), then warmed (prepared; with Warm, every transaction type run
	// on each) and the terminals scheduled.
	DialSeconds, WarmSeconds float64
	DialCPU, WarmCPU         float64 // CPU seconds (user+sys) of the same phases
	ReadyUnix                int64   // ns: the executors started
	WaitCPU, WindowSeconds   float64 // CPU seconds over the wait window, its length
	// Over the same window: the Go runtime's estimate of its collector's
	// CPU (runtime/metrics /cpu/classes/gc/total, documented as an
	// overestimate: it can exceed WaitCPU), and the collections that
	// ended (/gc/cycles/total).
	WaitGCCPU         float64
	WaitGCs           uint64
	BaseRSS, HWM      int64 // before Run; the kernel's peak (VmHWM) at the window's end
	WaitRSS           int64 // at the window's end
	LiveRSS, LiveHeap int64 // after a forced GC that returns freed pages
	LiveStack         int64
	Goroutines        int
	Transactions      int64 // that ran during the window (the terminals wait: 0)
}

const hostChildEnv = "BENCHRIG_HOST200K_CHILD"

// gcMetrics reads the collector's CPU seconds so far (the runtime's own
// estimate, which counts its mark assists and idle marking too) and the
// collections completed.
func gcMetrics() []metrics.Sample {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s
}

// phaseWriter timestamps the progress lines Run prints (each flushed as
// its phase begins): the warm-up's phases, without a hook in Run.
type phaseWriter struct {
	mu   sync.Mutex
	at   map[string]time.Time
	cpu  map[string]time.Duration
	tail []byte
}

func (w *phaseWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now, cpu := time.Now(), procCPU()
	w.tail = append(w.tail, p...)
	for {
		i := bytes.IndexByte(w.tail, '\n')
		if i < 0 {
			break
		}
		line := string(w.tail[:i])
		w.tail = w.tail[i+1:]
		for _, k := range []string{"connections...", "Profile ", "terminals ("} {
			if strings.Contains(line, k) {
				if _, seen := w.at[k]; !seen {
					w.at[k], w.cpu[k] = now, cpu
				}
			}
		}
	}
	return len(p), nil
}

// TestHost200kChild is not a test: BenchmarkHost200k and
// BenchmarkConnBytes run the test binary again with it selected.
func TestHost200kChild(t *testing.T) {
	js := os.Getenv(hostChildEnv)
	if js == "" {
		t.Skip("a child process of BenchmarkHost200k")
	}
	var c hostChild
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	if c.ProfRate > 0 {
		runtime.MemProfileRate = c.ProfRate
	}
	runtime.GC()
	res := hostChildResult{Index: c.Index, BaseRSS: procStatus(t, "VmRSS:")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pw := &phaseWriter{at: map[string]time.Time{}, cpu: map[string]time.Duration{}}
	started := make(chan struct{})
	cfg := RunConfig{URLs: c.URLs, Warehouses: c.Warehouses, Conns: c.Conns, Profile: c.Profile, Wait: 1,
		Duration: 10 * time.Hour, TolerateErrors: true, Out: pw, DisplayEvery: 10 * time.Second,
		benchOnlyLoaded: c.Loaded, benchOnlyWarm: c.Warm, benchOnlyFirstDue: 20 * time.Hour,
		benchOnlyStarted: func() { close(started) }, ChooseProfile: chooseForTests}
	if c.Method != "" {
		m, err := ParseMethod(c.Method)
		if err != nil {
			t.Fatal(err)
		}
		cfg.QueryExecMode = m
	}
	needs, err := RunNeeds(chosen(cfg))
	if err != nil {
		t.Fatal(err)
	}
	res.Terminals, res.Conns = needs.Terminals, needs.Conns
	runErr := make(chan error, 1)
	var rr *RunResult
	go func() {
		var err error
		rr, err = Run(ctx, chosen(cfg))
		runErr <- err
	}()
	select {
	case <-started:
	case err := <-runErr:
		t.Fatalf("run ended before its terminals started: %v", err)
	}
	ready, readyCPU := time.Now(), procCPU()
	res.ReadyUnix = ready.UnixNano()
	pw.mu.Lock()
	t0, tp := pw.at["connections..."], pw.at["Profile "]
	c0, cp := pw.cpu["connections..."], pw.cpu["Profile "]
	pw.mu.Unlock()
	res.DialSeconds, res.DialCPU = tp.Sub(t0).Seconds(), (cp - c0).Seconds()
	res.WarmSeconds, res.WarmCPU = ready.Sub(tp).Seconds(), (readyCPU - cp).Seconds()
	if c.Dir != "" { // every process ready before any measures its wait
		if err := os.WriteFile(filepath.Join(c.Dir, fmt.Sprintf("ready.%d", c.Index)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(c.Dir, "go")); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	time.Sleep(c.Settle)
	w0, cpu0, gc0 := time.Now(), procCPU(), gcMetrics()
	time.Sleep(c.Window)
	res.WaitCPU, res.WindowSeconds = (procCPU() - cpu0).Seconds(), time.Since(w0).Seconds()
	gc1 := gcMetrics()
	res.WaitGCCPU, res.WaitGCs = gc1[0].Value.Float64()-gc0[0].Value.Float64(), gc1[1].Value.Uint64()-gc0[1].Value.Uint64()
	res.WaitRSS, res.HWM = procStatus(t, "VmRSS:"), procStatus(t, "VmHWM:")
	res.Goroutines = runtime.NumGoroutine()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	res.LiveRSS, res.LiveHeap, res.LiveStack = procStatus(t, "VmRSS:"), int64(m.HeapInuse+m.StackInuse), int64(m.StackInuse)
	if c.HeapProf != "" {
		if f, err := os.Create(c.HeapProf); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	cancel()
	err = <-runErr
	if rr != nil {
		for _, n := range rr.Counts {
			res.Transactions += n
		}
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("run: %v", err)
	}
	b, _ := json.Marshal(res)
	fmt.Printf("HOST200K %s\n", b)
}

// procCPU is this process's user+system CPU time.
func procCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus is a kB field of /proc/self/status, in bytes.
func procStatus(t testing.TB, field string) int64 {
	n, err := pidStatus(os.Getpid(), field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pidStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == field {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// pidCPU is a process's user+system CPU time from /proc/<pid>/stat.
func pidCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command (in parentheses, which may hold spaces):
	// state is field 3, utime 14, stime 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("malformed stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, errors.New("short stat")
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ = 100 on Linux
}

// childProc is a started child.
type childProc struct {
	spec hostChild
	cmd  *exec.Cmd
	out  bytes.Buffer
}

func startChild(b *testing.B, spec hostChild) *childProc {
	js, _ := json.Marshal(spec)
	p := &childProc{spec: spec}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestHost200kChild$", "-test.v", "-test.count=1", "-test.timeout=0")
	p.cmd.Env = append(os.Environ(), hostChildEnv+"="+string(js))
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return p
}

func (p *childProc) wait(b *testing.B) hostChildResult {
	err := p.cmd.Wait()
	for _, line := range strings.Split(p.out.String(), "\n") {
		if js, ok := strings.CutPrefix(line, "HOST200K "); ok {
			var r hostChildResult
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				b.Fatal(err)
			}
			return r
		}
	}
	b.Fatalf("child %d printed no result (%v):\n%s", p.spec.Index, err, p.out.String())
	return hostChildResult{}
}

// hostSplit cuts a host's URLs (perURL connections each) into the fewest
// processes of at most maxConns connections, contiguous groups as even
// as can be, and shares the host's warehouses among them in proportion
// to their URLs (largest remainder).
func hostSplit(urls []string, perURL, warehouses, maxConns int) (groups [][]string, whs []int) {
	per := max(1, maxConns/perURL)
	n := (len(urls) + per - 1) / per
	for i := range n {
		lo, hi := i*len(urls)/n, (i+1)*len(urls)/n
		groups = append(groups, urls[lo:hi])
		whs = append(whs, warehouses*(hi-lo)/len(urls))
	}
	given := 0
	for _, w := range whs {
		given += w
	}
	for i := 0; given < warehouses; i = (i + 1) % n {
		whs[i]++
		given++
	}
	return groups, whs
}

// BenchmarkHost200k measures one workload host of the 100k recipe here:
// workload1's 222,210 terminals and its connections (200,070 with the
// workload profile, 5,589 pipelined) against 81 node addresses, which
// docs/measure/host200k.sh stands in with 81 PgBouncers on 127.0.1.1 ..
// 127.0.1.81 in front of one PostgreSQL holding 4 warehouses (the
// terminals' homes are folded onto them; their rows are shared, their
// terminals, connections and executors are all real).
//
// One process cannot hold 200,070 sockets on this machine (a hard open-
// files limit of 20,000 that root cannot raise), so the host's URLs are
// cut into the fewest processes of at most BENCHRIG_HOST200K_MAXCONNS
// (default 18,000) connections each (12 for the workload profile, 6-7
// URLs each; the pipelined profile's 5,589 fit one), each with its share
// of the terminals, all started together. Each dials its URLs as Run
// does (at most 100 at a time per URL, every URL at once) and warms them
// (the workload profile prepares its statements on every connection, as
// workload does, 100 at a time per process; the pipelined profile runs
// each transaction type once on every connection, benchOnlyWarm, so its
// statements are prepared too), then schedules its terminals at the
// spec's keying and think times with their first transaction hours away:
// the window measures what 222,210 scheduled, waiting terminals cost (no
// transaction runs; what they cost when they run is the no-wait
// benchmarks' CPU per 1,000 New-Orders).
//
// Reported, in sum and per process: the warm-up's wall time (to the last
// process ready) and CPU, CPU per minute while waiting, the peak RSS
// (the kernel's VmHWM per process, and the highest sum sampled every
// second), and the live RSS and Go heap after a forced GC. On a real
// host with a raised limit the same terminals and connections are one
// process: its figure is this sum minus (N-1) process baselines (an
// empty child's RSS, reported as baseline-RSS-MiB).
//
// Opt-in, like BenchmarkSpecPaced: BENCHRIG_HOST200K_URLS holds the 81
// URLs (space-separated) and BENCHRIG_HOST200K_PROFILE the profile
// (pipelined or workload); BENCHRIG_HOST200K_WINDOW (default 2m) is the
// wait measured, BENCHRIG_HOST200K_METHOD a --method other than prepare.
func BenchmarkHost200k(b *testing.B) {
	urls := strings.Fields(os.Getenv("BENCHRIG_HOST200K_URLS"))
	if len(urls) == 0 {
		b.Skip("set BENCHRIG_HOST200K_URLS (81 URLs: docs/measure/host200k.sh starts them) to measure the 100k recipe's workload1")
	}
	if len(urls) != host200kNodes {
		b.Fatalf("BENCHRIG_HOST200K_URLS: %d URLs, want the plan's %d", len(urls), host200kNodes)
	}
	prof, err := ParseProfile(os.Getenv("BENCHRIG_HOST200K_PROFILE"))
	if err != nil || prof == "" {
		b.Fatalf("BENCHRIG_HOST200K_PROFILE: pipelined or workload (%v)", err)
	}
	window := envDuration(b, "BENCHRIG_HOST200K_WINDOW", 2*time.Minute)
	maxConns := envInt(b, "BENCHRIG_HOST200K_MAXCONNS", 18000)
	loaded := envInt(b, "BENCHRIG_HOST200K_LOADED", 4)
	cfg := host200kPlan
	cfg.URLs, cfg.Profile, cfg.ChooseProfile = urls, prof, chooseForTests
	needs, err := RunNeeds(chosen(cfg))
	if err != nil {
		b.Fatal(err)
	}
	perURL := needs.Conns / len(urls)
	groups, whs := hostSplit(urls, perURL, needs.Terminals/10, maxConns)
	for b.Loop() {
		dir := b.TempDir()
		// The baseline: an empty process of the same binary, as each
		// child is before Run.
		var procs []*childProc
		start := time.Now()
		for i, g := range groups {
			procs = append(procs, startChild(b, hostChild{Index: i, URLs: g, Warehouses: whs[i], Loaded: loaded,
				Conns: perURL * len(g), Profile: prof, Method: os.Getenv("BENCHRIG_HOST200K_METHOD"),
				Warm: prof == ProfilePipelined, Dir: dir, Settle: 10 * time.Second, Window: window}))
		}
		// Sample the children's RSS sum every second; release them into
		// their wait window once all are ready.
		var peakSum int64
		var goAt time.Time
		stopSampling := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stopSampling:
					return
				case <-tick.C:
				}
				var sum int64
				for _, p := range procs {
					if n, err := pidStatus(p.cmd.Process.Pid, "VmRSS:"); err == nil {
						sum += n
					}
				}
				peakSum = max(peakSum, sum)
				if goAt.IsZero() {
					if m, _ := filepath.Glob(filepath.Join(dir, "ready.*")); len(m) == len(procs) {
						goAt = time.Now()
						_ = os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
					}
				}
			}
		}()
		var res []hostChildResult
		for _, p := range procs {
			res = append(res, p.wait(b))
		}
		close(stopSampling)
		<-sampled
		base := runBaseline(b)
		sort.Slice(res, func(i, j int) bool { return res[i].Index < res[j].Index })
		var sum hostChildResult
		var lastReady int64
		var maxDial, maxWarm float64
		for _, r := range res {
			b.Logf("process %2d: %6d terminals, %6d conns: dial %5.1f s (%5.1f s CPU), warm %5.1f s (%5.1f s CPU); waiting %.1f s: %.2f s CPU (%d collections: %.2f s); RSS base %.0f, peak (HWM) %.0f, waiting %.0f, live %.0f MiB; heap+stacks live %.0f MiB (stacks %.0f); %d goroutines; %d transactions",
				r.Index, r.Terminals, r.Conns, r.DialSeconds, r.DialCPU, r.WarmSeconds, r.WarmCPU, r.WindowSeconds, r.WaitCPU, r.WaitGCs, r.WaitGCCPU,
				mib(r.BaseRSS), mib(r.HWM), mib(r.WaitRSS), mib(r.LiveRSS), mib(r.LiveHeap), mib(r.LiveStack), r.Goroutines, r.Transactions)
			sum.Terminals += r.Terminals
			sum.Conns += r.Conns
			sum.DialCPU += r.DialCPU
			sum.WarmCPU += r.WarmCPU
			sum.WaitCPU += r.WaitCPU
			sum.WindowSeconds = max(sum.WindowSeconds, r.WindowSeconds)
			sum.HWM += r.HWM
			sum.WaitRSS += r.WaitRSS
			sum.LiveRSS += r.LiveRSS
			sum.LiveHeap += r.LiveHeap
			sum.BaseRSS += r.BaseRSS
			sum.Transactions += r.Transactions
			lastReady = max(lastReady, r.ReadyUnix)
			maxDial, maxWarm = max(maxDial, r.DialSeconds), max(maxWarm, r.WarmSeconds)
		}
		n := float64(len(res))
		gib := func(v int64) float64 { return float64(v) / (1 << 30) }
		oneProc := func(v int64) float64 { return gib(v - int64(n-1)*base) }
		perMin, gcPerMin := 0.0, 0.0
		for _, r := range res {
			perMin += r.WaitCPU / r.WindowSeconds * 60
			gcPerMin += r.WaitGCCPU / r.WindowSeconds * 60
		}
		b.Logf("%s profile, %d processes (at most %d connections each), load average %s: %d terminals, %d connections; warm-up to the last process ready %.1f s; RSS peak of the sum %.2f GiB, sum of peaks %.2f GiB, waiting %.2f GiB, live %.2f GiB; one process (sum - %d baselines of %.1f MiB): peak %.2f, waiting %.2f GiB; CPU while waiting %.2f s per minute (all processes), of which the Go collector's %.2f s; %d transactions ran",
			prof, len(res), maxConns, loadAvg(), sum.Terminals, sum.Conns, time.Unix(0, lastReady).Sub(start).Seconds(),
			gib(peakSum), gib(sum.HWM), gib(sum.WaitRSS), gib(sum.LiveRSS), len(res)-1, mib(base), oneProc(sum.HWM), oneProc(sum.WaitRSS), perMin, gcPerMin, sum.Transactions)
		b.ReportMetric(float64(len(res)), "processes")
		b.ReportMetric(float64(sum.Terminals), "terminals")
		b.ReportMetric(float64(sum.Conns), "conns")
		b.ReportMetric(time.Unix(0, lastReady).Sub(start).Seconds(), "warmup-s")
		b.ReportMetric(maxDial, "dial-s-max")
		b.ReportMetric(maxWarm, "warm-s-max")
		b.ReportMetric(sum.DialCPU+sum.WarmCPU, "warmup-CPU-s")
		b.ReportMetric(gib(peakSum), "peak-RSS-GiB-sum-sampled")
		b.ReportMetric(gib(sum.HWM), "peak-RSS-GiB-sum-of-HWM")
		b.ReportMetric(oneProc(sum.HWM), "peak-RSS-GiB-one-process")
		b.ReportMetric(gib(sum.WaitRSS), "waiting-RSS-GiB")
		b.ReportMetric(float64(sum.LiveHeap)/float64(sum.Conns), "live-heap-B/conn-incl-terminals")
		b.ReportMetric(perMin, "waiting-CPU-s/min")
		b.ReportMetric(gcPerMin, "waiting-GC-CPU-s/min")
		b.ReportMetric(mib(base), "baseline-RSS-MiB")
		b.ReportMetric(float64(sum.Transactions), "transactions")
	}
}

// runBaseline is the RSS of a child that measures nothing: the test
// binary loaded and its runtime started, as each child is before Run.
func runBaseline(b *testing.B) int64 {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHost200kBaseline$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), hostChildEnv+"=baseline")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("baseline: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "BASELINE "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("baseline printed nothing:\n%s", out)
	return 0
}

// TestHost200kBaseline is not a test: runBaseline's child.
func TestHost200kBaseline(t *testing.T) {
	if os.Getenv(hostChildEnv) != "baseline" {
		t.Skip("a child process of BenchmarkHost200k")
	}
	runtime.GC()
	fmt.Printf("BASELINE %d\n", procStatus(t, "VmRSS:"))
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: want a positive duration", name, s)
	}
	return d
}

// BenchmarkConnBytes is what one warmed connection costs, per profile:
// two processes with the same 400 terminals (waiting, as in
// BenchmarkHost200k) and 100 or 600 connections to one real PostgreSQL,
// each connection warmed (the workload profile prepares its statements;
// the pipelined one runs every transaction type once), and the
// difference of their live heap (Go heap in use plus stacks, after a
// forced GC) and live RSS divided by the 500 connections between them.
// That includes each connection's executor goroutine. The variants run
// side by side: pgx's defaults, benchrig's earlier sizing (64 statements), and
// the current sizing (SizeConnConfig).
func BenchmarkConnBytes(b *testing.B) {
	const lo, hi, loaded = 100, 600, 1
	srv := pgtest.Start(b, pgtest.NoSync(), pgtest.Setting("max_connections", "700"))
	url := loadInto(b, srv, loaded)
	for b.Loop() {
		for _, prof := range []Profile{ProfilePipelined, ProfileWorkload} {
			for _, v := range connSizings {
				var r [2]hostChildResult
				for i, n := range []int{lo, hi} {
					spec := hostChild{URLs: []string{url + v.query}, Warehouses: 40, Loaded: loaded, Conns: n, Profile: prof,
						Warm: prof == ProfilePipelined, Window: time.Second}
					if p := os.Getenv("BENCHRIG_CONNBYTES_HEAPPROFILE"); p != "" {
						// Every allocation sampled: pprof -base the two.
						spec.HeapProf, spec.ProfRate = fmt.Sprintf("%s.%s.%s.%d", p, prof, v.name, n), 1
					}
					p := startChild(b, spec)
					r[i] = p.wait(b)
				}
				heap := float64(r[1].LiveHeap-r[0].LiveHeap) / (hi - lo)
				rss := float64(r[1].LiveRSS-r[0].LiveRSS) / (hi - lo)
				b.Logf("%s, %s: live heap+stacks %.1f kB, live RSS %.1f kB per warmed connection (warm-up of %d: %.1f s)", prof, v.name, heap/1000, rss/1000, hi, r[1].WarmSeconds)
				b.ReportMetric(heap, "live-heap-B/conn/"+string(prof)+"/"+v.name)
				b.ReportMetric(rss, "live-RSS-B/conn/"+string(prof)+"/"+v.name)
			}
		}
	}
}

// connSizings are BenchmarkConnBytes's variants, as URL parameters that
// pgx reads (ParseConfig) and SizeConnConfig keeps.
// pgx's defaults are two 512-entry caches, which SizeConnConfig would
// replace; 511 allocates the same maps.
var connSizings = []struct{ name, query string }{
	{"pgx-defaults", "&statement_cache_capacity=511&description_cache_capacity=511"},
	{"cache-64", "&statement_cache_capacity=64"}, // the earlier statement cache
	{"current", ""},
}

// TestHostSplit checks BenchmarkHost200k's split of workload1 against
// the plan's own sizing: every process under the open-files limit with
// its reserve, every URL and warehouse given once, shares in proportion.
func TestHostSplit(t *testing.T) {
	urls := make([]string, host200kNodes)
	for i := range urls {
		urls[i] = fmt.Sprintf("postgres://127.0.1.%d:6432/tpcc", i+1)
	}
	for _, tc := range []struct {
		prof      Profile
		maxConns  int
		procs     int
		terminals int
		conns     int
	}{
		{ProfileWorkload, 18000, 12, 222210, 200070},
		{ProfilePipelined, 18000, 1, 222210, 5589},
		{ProfileWorkload, 2470, 81, 222210, 200070},
	} {
		cfg := host200kPlan
		cfg.URLs, cfg.Profile, cfg.ChooseProfile = urls, tc.prof, chooseForTests
		needs, err := RunNeeds(chosen(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if needs.Terminals != tc.terminals || needs.Conns != tc.conns {
			t.Fatalf("%s: workload1 needs %d terminals, %d connections; want %d, %d", tc.prof, needs.Terminals, needs.Conns, tc.terminals, tc.conns)
		}
		perURL := needs.Conns / len(urls)
		groups, whs := hostSplit(urls, perURL, needs.Terminals/10, tc.maxConns)
		if len(groups) != tc.procs || len(whs) != tc.procs {
			t.Fatalf("%s: %d processes, want %d", tc.prof, len(groups), tc.procs)
		}
		seen, wsum := 0, 0
		for i, g := range groups {
			if c := perURL * len(g); c > tc.maxConns || c+fdReserve > 20000 {
				t.Errorf("%s: process %d holds %d connections", tc.prof, i, c)
			}
			for j, u := range g {
				if u != urls[seen+j] {
					t.Fatalf("%s: process %d's URL %d is %s, want %s", tc.prof, i, j, u, urls[seen+j])
				}
			}
			seen += len(g)
			wsum += whs[i]
			if want := float64(needs.Terminals/10) * float64(len(g)) / float64(len(urls)); float64(whs[i]) < want-1 || float64(whs[i]) > want+1 {
				t.Errorf("%s: process %d: %d warehouses for %d URLs, want ~%.0f", tc.prof, i, whs[i], len(g), want)
			}
		}
		if seen != len(urls) || wsum != needs.Terminals/10 {
			t.Errorf("%s: %d URLs, %d warehouses given; want %d, %d", tc.prof, seen, wsum, len(urls), needs.Terminals/10)
		}
	}
}
