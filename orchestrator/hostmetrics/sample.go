package hostmetrics

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/procfs"
)

// Schema names the version of the JSON lines.
const Schema = "benchrig.hoststat/v1"

// Sample is one interval of one host; rates are per second over the
// interval, CPU figures percentages of all CPUs' time.
type Sample struct {
	Schema   string    `json:"schema"`
	Host     string    `json:"host"`
	Time     time.Time `json:"t"`
	Interval float64   `json:"interval_s"`
	CPU      CPU       `json:"cpu"`
	Mem      Mem       `json:"mem"`
	Load1    float64   `json:"load1"`
	Disks    []Disk    `json:"disks,omitempty"`
	Net      []Net     `json:"net,omitempty"`
}

// CPU is the share of all CPUs' time in each state, in percent.
type CPU struct {
	CPUs   int     `json:"cpus"`
	User   float64 `json:"user"` // including nice
	System float64 `json:"system"`
	IOWait float64 `json:"iowait"`
	IRQ    float64 `json:"irq"` // hard and soft interrupts
	Steal  float64 `json:"steal"`
	Idle   float64 `json:"idle"`
}

// Busy is the CPU time not available to more work: everything but idle
// and iowait (iowait is idle time with I/O outstanding). Steal counts as
// busy: a VM whose hypervisor takes the CPU cannot use it either.
func (c CPU) Busy() float64 { return c.User + c.System + c.IRQ + c.Steal }

// Mem is memory in bytes.
type Mem struct {
	Total     uint64 `json:"total"`
	Available uint64 `json:"available"`
	SwapUsed  uint64 `json:"swap_used"`
}

// Disk is one block device's throughput.
type Disk struct {
	Name        string  `json:"name"`
	ReadBytes   float64 `json:"read_bytes_per_s"`
	WriteBytes  float64 `json:"write_bytes_per_s"`
	Reads       float64 `json:"reads_per_s"`
	Writes      float64 `json:"writes_per_s"`
	Utilization float64 `json:"util_percent"` // time with I/O in flight
}

// Net is one network interface's throughput.
type Net struct {
	Name      string  `json:"name"`
	RxBytes   float64 `json:"rx_bytes_per_s"`
	TxBytes   float64 `json:"tx_bytes_per_s"`
	RxPackets float64 `json:"rx_packets_per_s"`
	TxPackets float64 `json:"tx_packets_per_s"`
}

// Sampler reads a host's counters.
type Sampler struct {
	Host string
	Proc string // procfs root; "" is /proc
	Sys  string // sysfs root; "" is /sys
	Now  func() time.Time
}

// snapshot is one reading of every counter.
type snapshot struct {
	at    time.Time
	cpu   cpuTimes
	mem   memBytes
	load  float64
	disks map[string]diskTimes
	net   map[string]netCounters
}

func (s *Sampler) root(def, r string) string {
	if r == "" {
		return def
	}
	return r
}

// read takes one snapshot through procfs rooted at s.Proc (a fake tree
// in tests). /proc/stat and /proc/meminfo are required; loadavg, disks
// and network are reported when readable.
func (s *Sampler) read() (snapshot, error) {
	proc, sys := s.root("/proc", s.Proc), s.root("/sys", s.Sys)
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	snap := snapshot{at: now()}
	fs, err := procfs.NewFS(proc)
	if err != nil {
		return snap, err
	}
	st, err := safely(filepath.Join(proc, "stat"), fs.Stat)
	if err != nil {
		return snap, err
	}
	if snap.cpu, err = cpuFrom(st); err != nil {
		return snap, err
	}
	mi, err := safely(filepath.Join(proc, "meminfo"), fs.Meminfo)
	if err != nil {
		return snap, err
	}
	if snap.mem, err = memFrom(mi); err != nil {
		return snap, err
	}
	if l, err := safely(filepath.Join(proc, "loadavg"), fs.LoadAvg); err == nil {
		snap.load = load1(l)
	}
	snap.disks = disksFrom(proc, sys)
	snap.net = netFrom(fs, proc)
	return snap, nil
}

// diff turns two snapshots into a sample. Counters that went backwards
// (a device removed and re-added) give no rate rather than a huge one.
func diff(host string, a, b snapshot) Sample {
	secs := b.at.Sub(a.at).Seconds()
	s := Sample{Schema: Schema, Host: host, Time: b.at.UTC(), Interval: secs, Load1: b.load}
	d := func(x, y uint64) float64 {
		if y < x {
			return 0
		}
		return float64(y - x)
	}
	if tot := d(a.cpu.total(), b.cpu.total()); tot > 0 {
		pct := func(x, y uint64) float64 { return d(x, y) / tot * 100 }
		s.CPU = CPU{CPUs: b.cpu.cpus,
			User: pct(a.cpu.user+a.cpu.nice, b.cpu.user+b.cpu.nice), System: pct(a.cpu.system, b.cpu.system),
			IOWait: pct(a.cpu.iowait, b.cpu.iowait), IRQ: pct(a.cpu.irq+a.cpu.softirq, b.cpu.irq+b.cpu.softirq),
			Steal: pct(a.cpu.steal, b.cpu.steal), Idle: pct(a.cpu.idle, b.cpu.idle)}
	}
	s.Mem = Mem{Total: b.mem.total, Available: b.mem.available}
	if st, sf := b.mem.swapTotal, b.mem.swapFree; st >= sf {
		s.Mem.SwapUsed = st - sf
	}
	if secs <= 0 {
		return s
	}
	for _, n := range sortedKeys(b.disks) {
		x, y := a.disks[n], b.disks[n]
		s.Disks = append(s.Disks, Disk{Name: n,
			ReadBytes: d(x.sectorsRead, y.sectorsRead) * 512 / secs, WriteBytes: d(x.sectorsWritten, y.sectorsWritten) * 512 / secs,
			Reads: d(x.reads, y.reads) / secs, Writes: d(x.writes, y.writes) / secs,
			Utilization: min(100, d(x.ioMillis, y.ioMillis)/(secs*1000)*100)})
	}
	for _, n := range sortedKeys(b.net) {
		x, y := a.net[n], b.net[n]
		s.Net = append(s.Net, Net{Name: n, RxBytes: d(x.rxBytes, y.rxBytes) / secs, TxBytes: d(x.txBytes, y.txBytes) / secs,
			RxPackets: d(x.rxPackets, y.rxPackets) / secs, TxPackets: d(x.txPackets, y.txPackets) / secs})
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Run writes a sample every interval until ctx ends, each line flushed
// as written (a host killed mid-run keeps what it sampled). The first
// sample comes one interval after the start.
func (s *Sampler) Run(ctx context.Context, interval time.Duration, w io.Writer) error {
	if interval < 10*time.Millisecond {
		return fmt.Errorf("hoststat: interval %s is below 10ms", interval)
	}
	prev, err := s.read()
	if err != nil {
		return fmt.Errorf("hoststat: %w", err)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		cur, err := s.read()
		if err != nil {
			return fmt.Errorf("hoststat: %w", err)
		}
		if err := enc.Encode(diff(s.Host, prev, cur)); err != nil {
			return fmt.Errorf("hoststat: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("hoststat: %w", err)
		}
		prev = cur
	}
}

// Bounds on a samples file, which a host writes (it may be hostile or
// broken): a sample a second for a day is 86400 lines; a line names at
// most a few dozen disks and interfaces.
const (
	maxSampleLine  = 64 << 10
	maxSamples     = 4 * 86400
	maxDevices     = 256
	maxDeviceName  = 64
	maxRate        = 1e15 // bytes or packets a second: far above any device
	maxCPUs        = 1 << 16
	maxPercent     = 100.5 // per state; rounding of jiffies may pass 100 a hair
	maxSampleEvery = 3600.0
)

// Read reads JSON lines written by Run. A last line without its line
// feed (the sampler stopped mid-write) is dropped; any other bad line (not
// the schema, a value NaN, negative or absurd, a time not after the
// previous one, too long, too many) is an error naming its line number:
// the file is refused whole, never plotted in part.
func Read(r io.Reader) ([]Sample, error) {
	var out []Sample
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br, maxSampleLine)
		if err == io.EOF {
			return out, nil // an unterminated last line is torn
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if len(out) == maxSamples {
			return nil, fmt.Errorf("line %d: more than %d samples", n, maxSamples)
		}
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if s.Schema != Schema {
			return nil, fmt.Errorf("line %d: schema %.64q, want %q", n, s.Schema, Schema)
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(out) > 0 && !s.Time.After(out[len(out)-1].Time) {
			return nil, fmt.Errorf("line %d: time %s not after the previous sample's %s", n, s.Time.Format(time.RFC3339Nano), out[len(out)-1].Time.Format(time.RFC3339Nano))
		}
		out = append(out, s)
	}
}

// readLine is the next line with its line feed, at most max bytes; io.EOF
// if the input ends before one.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, fmt.Errorf("a line longer than %d bytes", max)
		}
		line = append(line, frag...)
		switch err {
		case nil:
			return line, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return nil, err
		}
	}
}

// check refuses values no sampler writes: NaN, Inf, negative or absurd.
func (s Sample) check() error {
	bad := func(what string, v, max float64) error {
		if math.IsNaN(v) || v < 0 || v > max {
			return fmt.Errorf("%s %v outside 0..%g", what, v, max)
		}
		return nil
	}
	if s.Time.IsZero() || s.Time.Year() < 2000 || s.Time.Year() > 2200 {
		return fmt.Errorf("time %s is no sample's", s.Time.Format(time.RFC3339))
	}
	if s.CPU.CPUs < 0 || s.CPU.CPUs > maxCPUs {
		return fmt.Errorf("cpus %d outside 0..%d", s.CPU.CPUs, maxCPUs)
	}
	if len(s.Disks) > maxDevices || len(s.Net) > maxDevices {
		return fmt.Errorf("%d disks and %d interfaces, more than %d", len(s.Disks), len(s.Net), maxDevices)
	}
	if s.Mem.Available > s.Mem.Total {
		return fmt.Errorf("memory available %d more than its total %d", s.Mem.Available, s.Mem.Total)
	}
	checks := []error{
		bad("interval", s.Interval, maxSampleEvery),
		bad("load1", s.Load1, 1e6),
		bad("cpu user", s.CPU.User, maxPercent), bad("cpu system", s.CPU.System, maxPercent),
		bad("cpu iowait", s.CPU.IOWait, maxPercent), bad("cpu irq", s.CPU.IRQ, maxPercent),
		bad("cpu steal", s.CPU.Steal, maxPercent), bad("cpu idle", s.CPU.Idle, maxPercent),
	}
	for _, d := range s.Disks {
		if len(d.Name) > maxDeviceName {
			return fmt.Errorf("disk name of %d bytes", len(d.Name))
		}
		checks = append(checks, bad("disk read bytes", d.ReadBytes, maxRate), bad("disk write bytes", d.WriteBytes, maxRate),
			bad("disk reads", d.Reads, maxRate), bad("disk writes", d.Writes, maxRate), bad("disk util", d.Utilization, maxPercent))
	}
	for _, n := range s.Net {
		if len(n.Name) > maxDeviceName {
			return fmt.Errorf("interface name of %d bytes", len(n.Name))
		}
		checks = append(checks, bad("net rx bytes", n.RxBytes, maxRate), bad("net tx bytes", n.TxBytes, maxRate),
			bad("net rx packets", n.RxPackets, maxRate), bad("net tx packets", n.TxPackets, maxRate))
	}
	return errors.Join(checks...)
}

// ReadFile reads one host's JSON lines file.
func ReadFile(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ss, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ss, nil
}
