package probe

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/internal/result"
)

// The kinds of probe result (docs/schema/result.v1.json).
const (
	KindFio   = "fio"
	KindClock = "clock"
)

// FioFile is a host's disk benchmark result under results/<host>/ of the
// run directory; ClockFile is the clock probes' file at its top.
const (
	FioFile   = "fio.json"
	ClockFile = "clock.json"
)

// FioJob describes the benchmark preflight runs (its fio arguments).
const FioJob = "4k random read/write 75/25, direct I/O, libaio, iodepth 64"

// Fio is one host's preflight disk benchmark.
type Fio struct {
	result.Header
	Host string `json:"host"`
	Path string `json:"path"` // the directory measured (the store path)
	// Status is "measured", "skipped" (fio_size 0, or a workload host),
	// "absent" (fio not installed) or "failed" (fio ran but printed no
	// figures); only "measured" has figures.
	Status         string  `json:"status"`
	Job            string  `json:"job,omitempty"`
	Size           string  `json:"size,omitempty"` // fio --size
	RuntimeSeconds float64 `json:"runtime_s,omitempty"`
	ReadIOPS       float64 `json:"read_iops"`
	WriteIOPS      float64 `json:"write_iops"`
	ReadKiBps      float64 `json:"read_kib_per_s"`
	WriteKiBps     float64 `json:"write_kib_per_s"`
}

// FioFromKV is the result of the preflight script's answer (its
// key=value lines: fio=skipped|absent, fio_read_iops, fio_write_iops,
// fio_read_kib, fio_write_kib, the last two being fio's bandwidth in
// KiB/s).
func FioFromKV(host, path, size string, runtime time.Duration, kv map[string]string) (Fio, error) {
	f := Fio{Header: result.New(KindFio), Host: host, Path: path}
	switch {
	case kv["fio"] == "skipped":
		f.Status = "skipped"
		return f, nil
	case kv["fio"] == "absent":
		f.Status = "absent"
		return f, nil
	case kv["fio_read_iops"] == "":
		f.Status = "failed"
		return f, nil
	}
	f.Status, f.Job, f.Size, f.RuntimeSeconds = "measured", FioJob, size, runtime.Seconds()
	for _, x := range []struct {
		key string
		to  *float64
	}{{"fio_read_iops", &f.ReadIOPS}, {"fio_write_iops", &f.WriteIOPS}, {"fio_read_kib", &f.ReadKiBps}, {"fio_write_kib", &f.WriteKiBps}} {
		v, err := strconv.ParseFloat(kv[x.key], 64)
		// NaN passes "v < 0" and would make the result unencodable; no
		// disk does 1e12 IOPS or KiB/s: the host's figure is refused.
		if err != nil || math.IsNaN(v) || v < 0 || v > maxFioFigure || len(kv[x.key]) > maxProbeField {
			return Fio{}, fmt.Errorf("%s: fio figure %s=%q is not a number in 0..%g", host, x.key, clip(kv[x.key]), float64(maxFioFigure))
		}
		*x.to = v
	}
	return f, nil
}

// Clock is a run's clock probes: every workload host's clock against
// this machine's, read before each measured run.
type Clock struct {
	result.Header
	Hosts []ClockHost `json:"hosts"`
}

// ClockHost is one probe: the host's clock minus the midpoint of sending
// the probe and receiving its answer, known to ± half the round trip.
type ClockHost struct {
	Host     string    `json:"host"`
	OffsetMs float64   `json:"offset_ms"`
	RTTMs    float64   `json:"rtt_ms"`
	Probed   time.Time `json:"probed_at"`
}

// NewClock returns an empty clock result.
func NewClock() Clock { return Clock{Header: result.New(KindClock), Hosts: []ClockHost{}} }

// NewClockHost is the probe of host that was sent and answered at these
// instants (this machine's clock) with the host's Unix time in seconds
// (`date +%s.%N`).
func NewClockHost(host string, sent, received time.Time, hostUnixSeconds float64) ClockHost {
	mid := sent.Add(received.Sub(sent) / 2)
	at := time.Unix(0, int64(hostUnixSeconds*1e9))
	return ClockHost{
		Host:     host,
		OffsetMs: float64(at.Sub(mid)) / float64(time.Millisecond),
		RTTMs:    float64(received.Sub(sent)) / float64(time.Millisecond),
		Probed:   sent.UTC(),
	}
}

// Bounds on a host's probe answers (the host writes them; it may be
// hostile or broken).
const (
	maxFioFigure  = 1e12    // IOPS or KiB/s: far above any disk
	maxProbeField = 64      // bytes of one number
	maxClockUnix  = 1 << 33 // seconds: the year 2242
)

// clip is s cut for an error message (which quotes it with %q).
func clip(s string) string {
	if len(s) > maxProbeField {
		return s[:maxProbeField] + "..."
	}
	return s
}

// ParseClock is the host's answer to the clock probe (`date +%s.%N`):
// one finite decimal of Unix seconds after 1970 and before 2242. NaN,
// Inf or a huge figure would overflow NewClockHost's nanoseconds.
func ParseClock(host, out string) (float64, error) {
	s := strings.TrimSpace(out)
	if len(s) > maxProbeField {
		return 0, fmt.Errorf("%s: clock probe answered %d bytes, not a time", host, len(s))
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return 0, fmt.Errorf("%s: clock probe answered %q, not Unix seconds", host, s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 || v >= maxClockUnix {
		return 0, fmt.Errorf("%s: clock probe answered %q, not Unix seconds", host, s)
	}
	return v, nil
}

// ParseKV reads the key=value lines the preflight script prints (one
// per line, the first '=' splitting; other lines are ignored).
func ParseKV(out string) map[string]string {
	kv := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			kv[k] = v
		}
	}
	return kv
}
