package hostmetrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

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

// parseStat reads /proc/stat's aggregate cpu line and counts cpuN lines.
func parseStat(data []byte) (cpuTimes, error) {
	var c cpuTimes
	found := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			c.cpus++
			continue
		}
		if len(f) < 9 {
			return c, fmt.Errorf("/proc/stat: cpu line has %d fields, want at least 9", len(f))
		}
		vals := make([]uint64, 8)
		for i := range vals {
			v, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return c, fmt.Errorf("/proc/stat: cpu field %d: %w", i+1, err)
			}
			vals[i] = v
		}
		c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq, c.steal = vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6], vals[7]
		found = true
	}
	if !found {
		return c, errors.New("/proc/stat: no cpu line")
	}
	return c, nil
}

// parseMeminfo reads the kB fields of /proc/meminfo.
func parseMeminfo(data []byte) (map[string]uint64, error) {
	m := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			if v > 1<<53 {
				continue
			}
			v *= 1024
		}
		m[name] = v
	}
	if _, ok := m["MemTotal"]; !ok {
		return nil, errors.New("/proc/meminfo: no MemTotal")
	}
	return m, nil
}

// diskTimes are one device's /proc/diskstats counters.
type diskTimes struct {
	reads, sectorsRead, writes, sectorsWritten, ioMillis uint64
}

// parseDiskstats reads /proc/diskstats (Documentation/admin-guide/
// iostats.rst): fields 4, 6, 8, 10 and 13 are reads completed, sectors
// read, writes completed, sectors written and milliseconds spent doing
// I/O. Sectors are 512 bytes whatever the device's own sector size.
func parseDiskstats(data []byte, keep func(string) bool) (map[string]diskTimes, error) {
	out := map[string]diskTimes{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 14 || !keep(f[2]) {
			continue
		}
		var v [14]uint64
		ok := true
		for _, i := range []int{3, 5, 7, 9, 12} {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				ok = false
				break
			}
			v[i] = n
		}
		if ok {
			out[f[2]] = diskTimes{reads: v[3], sectorsRead: v[5], writes: v[7], sectorsWritten: v[9], ioMillis: v[12]}
		}
	}
	return out, nil
}

// netCounters are one interface's /proc/net/dev byte and packet counters.
type netCounters struct {
	rxBytes, rxPackets, txBytes, txPackets uint64
}

// parseNetDev reads /proc/net/dev: after "iface:", 8 receive then 8
// transmit counters.
func parseNetDev(data []byte) (map[string]netCounters, error) {
	out := map[string]netCounters{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		f := strings.Fields(rest)
		if len(f) < 16 || name == "" {
			continue
		}
		var v [16]uint64
		bad := false
		for _, i := range []int{0, 1, 8, 9} {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				bad = true
				break
			}
			v[i] = n
		}
		if !bad {
			out[name] = netCounters{rxBytes: v[0], rxPackets: v[1], txBytes: v[8], txPackets: v[9]}
		}
	}
	return out, nil
}

// parseLoadavg reads the 1-minute load average.
func parseLoadavg(data []byte) (float64, error) {
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, errors.New("/proc/loadavg: empty")
	}
	return strconv.ParseFloat(f[0], 64)
}
