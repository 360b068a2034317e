package hostmetrics

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// The kernel's files are parsed by github.com/prometheus/procfs (the
// Prometheus node exporter's own reader); this file turns what it
// returns into the counters diff works on, in the kernel's units.

// safely runs one procfs reader, turning a panic into an error: procfs
// v0.23.0 indexes the fields of a /proc/net/dev line without checking
// how many there are (net_dev.go parseLine: a truncated line panics,
// found by FuzzSamplerRead). A broken file must stop a sample, never
// crash the sampler on a host mid-run.
func safely[T any](path string, read func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("%s: procfs panicked: %v", path, r)
		}
	}()
	v, err = read()
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// procfsUserHZ is the USER_HZ procfs assumes when it turns /proc/stat's
// clock ticks into seconds (procfs v0.23.0 proc_stat.go: userHZ = 100).
// benchrig keeps ticks: multiplying back by the same constant gives the
// kernel's integers exactly (below 2^51 ticks, 71 000 years of one CPU at
// 100 Hz), so the percentages are ratios of integers as before, whatever
// the host's real USER_HZ (it cancels out of every ratio).
const procfsUserHZ = 100

// ticks turns one procfs CPU time in seconds back into clock ticks. A
// value no kernel writes (negative, NaN, infinite, beyond uint64: procfs
// reads these fields with %f) is refused rather than wrapped.
func ticks(seconds float64) (uint64, bool) {
	t := math.Round(seconds * procfsUserHZ)
	if !(t >= 0 && t < 1<<63) { // false for NaN too
		return 0, false
	}
	return uint64(t), true
}

// cpuTimes are the aggregate "cpu" line of /proc/stat, in clock ticks
// (proc(5)): user nice system idle iowait irq softirq steal. guest and
// guest_nice are already counted in user and nice.
type cpuTimes struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
	cpus                                                  int
}

func (c cpuTimes) total() uint64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq + c.steal
}

// cpuFrom converts procfs's /proc/stat: the aggregate line in ticks and
// the number of cpuN lines.
func cpuFrom(st procfs.Stat) (cpuTimes, error) {
	t := st.CPUTotal
	if t == (procfs.CPUStat{}) {
		// procfs leaves CPUTotal zero when the line is missing; a
		// running kernel's is never all zero.
		return cpuTimes{}, errors.New("/proc/stat: no cpu line")
	}
	c := cpuTimes{cpus: len(st.CPU)}
	for i, f := range []struct {
		dst *uint64
		sec float64
	}{{&c.user, t.User}, {&c.nice, t.Nice}, {&c.system, t.System}, {&c.idle, t.Idle},
		{&c.iowait, t.Iowait}, {&c.irq, t.IRQ}, {&c.softirq, t.SoftIRQ}, {&c.steal, t.Steal}} {
		v, ok := ticks(f.sec)
		if !ok {
			return cpuTimes{}, fmt.Errorf("/proc/stat: cpu field %d is not a tick count", i+1)
		}
		*f.dst = v
	}
	return c, nil
}

// memBytes are the /proc/meminfo figures a sample reports, in bytes.
type memBytes struct {
	total, available, swapTotal, swapFree uint64
}

// memFrom converts procfs's /proc/meminfo. A field above 2^53 kB is
// taken as absent: procfs's kB-to-bytes product would wrap.
func memFrom(m procfs.Meminfo) (memBytes, error) {
	get := func(raw, bytes *uint64) uint64 {
		if raw == nil || bytes == nil || *raw > 1<<53 {
			return 0
		}
		return *bytes
	}
	if m.MemTotal == nil || *m.MemTotal > 1<<53 {
		return memBytes{}, errors.New("/proc/meminfo: no MemTotal")
	}
	return memBytes{
		total:     get(m.MemTotal, m.MemTotalBytes),
		available: get(m.MemAvailable, m.MemAvailableBytes),
		swapTotal: get(m.SwapTotal, m.SwapTotalBytes),
		swapFree:  get(m.SwapFree, m.SwapFreeBytes),
	}, nil
}

// load1 is /proc/loadavg's 1-minute figure; one that JSON cannot carry
// (NaN, infinite) or no kernel writes (negative) is 0.
func load1(l *procfs.LoadAvg) float64 {
	if l == nil || !(l.Load1 >= 0) || math.IsInf(l.Load1, 0) {
		return 0
	}
	return l.Load1
}

// diskTimes are one device's /proc/diskstats counters
// (Documentation/admin-guide/iostats.rst): reads completed, sectors
// read, writes completed, sectors written and milliseconds spent doing
// I/O. Sectors are 512 bytes whatever the device's own sector size.
type diskTimes struct {
	reads, sectorsRead, writes, sectorsWritten, ioMillis uint64
}

// disksFrom reads /proc/diskstats for whole disks only: /sys/block lists
// them (partitions would count twice); loop and RAM devices are not
// storage. A host without either file reports no disks.
func disksFrom(proc, sys string) map[string]diskTimes {
	bfs, err := blockdevice.NewFS(proc, sys)
	if err != nil {
		return nil
	}
	blocks, err := safely(filepath.Join(sys, "block"), bfs.SysBlockDevices)
	if err != nil {
		return nil
	}
	names := slices.DeleteFunc(blocks, func(n string) bool {
		return strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") || strings.HasPrefix(n, "zram")
	})
	stats, err := safely(filepath.Join(proc, "diskstats"), bfs.ProcDiskstats)
	if err != nil {
		return nil
	}
	out := map[string]diskTimes{}
	for _, d := range stats {
		if slices.Contains(names, d.DeviceName) {
			out[d.DeviceName] = diskTimes{reads: d.ReadIOs, sectorsRead: d.ReadSectors,
				writes: d.WriteIOs, sectorsWritten: d.WriteSectors, ioMillis: d.IOsTotalTicks}
		}
	}
	return out
}

// netCounters are one interface's /proc/net/dev byte and packet counters.
type netCounters struct {
	rxBytes, rxPackets, txBytes, txPackets uint64
}

// netFrom reads /proc/net/dev without the loopback interface. A file
// procfs cannot parse gives no interfaces rather than some of them.
func netFrom(fs procfs.FS, proc string) map[string]netCounters {
	dev, err := safely(filepath.Join(proc, "net", "dev"), fs.NetDev)
	if err != nil {
		return nil
	}
	out := map[string]netCounters{}
	for name, l := range dev {
		if name != "lo" {
			out[name] = netCounters{rxBytes: l.RxBytes, rxPackets: l.RxPackets, txBytes: l.TxBytes, txPackets: l.TxPackets}
		}
	}
	return out
}
