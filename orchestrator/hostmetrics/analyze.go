package hostmetrics

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Thresholds of the client-bound finding.
const (
	// SaturatedBusy: a host whose median CPU busy share is at or above
	// 90 % is saturated. Past that, runnable threads queue for a CPU
	// (waiting grows as ρ/(1−ρ): 9× the service time at 90 %), so a
	// driver's transactions start late and its measured latencies include
	// its own scheduling delay; the USE method (Gregg) treats sustained
	// utilization this high as saturation.
	SaturatedBusy = 90.0
	// HeadroomBusy: a database host below 70 % median busy has headroom:
	// it could serve more load than the driver gave it. Between 70 and 90
	// neither verdict is safe, and none is given.
	HeadroomBusy = 70.0
	// MinSamples: fewer samples than this say nothing about a run.
	MinSamples = 5
)

// Finding is one conclusion about a run's hosts.
type Finding struct {
	Kind    string // "client-bound"
	Message string
}

// HostStats summarises one host over a window.
type HostStats struct {
	Host       string
	Samples    int
	MedianBusy float64
	MaxBusy    float64
}

// Stats summarises the samples between from and to (zero: unbounded).
func Stats(host string, samples []Sample, from, to time.Time) HostStats {
	var busy []float64
	for _, s := range samples {
		if (!from.IsZero() && s.Time.Before(from)) || (!to.IsZero() && s.Time.After(to)) {
			continue
		}
		busy = append(busy, s.CPU.Busy())
	}
	st := HostStats{Host: host, Samples: len(busy)}
	if len(busy) == 0 {
		return st
	}
	slices.Sort(busy)
	st.MaxBusy = busy[len(busy)-1]
	if n := len(busy); n%2 == 1 {
		st.MedianBusy = busy[n/2]
	} else {
		st.MedianBusy = (busy[n/2-1] + busy[n/2]) / 2
	}
	return st
}

// ClientBound says whether the workload hosts, not the database, limited
// the run: some workload host's median CPU busy share is at least
// SaturatedBusy while every database host's is below HeadroomBusy. The
// median (not the mean) keeps a ramp or a final flush from deciding.
// Hosts with fewer than MinSamples samples are not judged.
func ClientBound(workload, database []HostStats) []Finding {
	var hot []string
	for _, w := range workload {
		if w.Samples >= MinSamples && w.MedianBusy >= SaturatedBusy {
			hot = append(hot, fmt.Sprintf("%s %.0f%%", w.Host, w.MedianBusy))
		}
	}
	if len(hot) == 0 || len(database) == 0 {
		return nil
	}
	var cool []string
	for _, d := range database {
		if d.Samples < MinSamples || d.MedianBusy >= HeadroomBusy {
			return nil
		}
		cool = append(cool, fmt.Sprintf("%s %.0f%%", d.Host, d.MedianBusy))
	}
	return []Finding{{Kind: "client-bound", Message: fmt.Sprintf(
		"client-bound: workload host CPU saturated (%s median busy) while the database hosts have headroom (%s): the driver, not the database, limited this result; add workload hosts or give them more CPUs",
		strings.Join(hot, ", "), strings.Join(cool, ", "))}}
}
