package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/hostmetrics"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/tpcc/result"
)

// This file reads the host samples the run stage left (benchrig hoststat,
// results/<host>/hoststat[.<round>].jsonl), summarises each host over the
// round's measured window, and warns when the driver, not the database,
// limited the result (hostmetrics.ClientBound).

// HostMetric summarises one host's CPU over a round's measured window
// (after the ramp, until the end of the duration; the whole file when the
// window is unknown).
type HostMetric struct {
	Round      string  `json:"round,omitempty"`
	Host       string  `json:"host"`
	Role       string  `json:"role"` // "database" or "workload"
	File       string  `json:"file"`
	Samples    int     `json:"samples"`
	MedianBusy float64 `json:"median_cpu_busy_percent"`
	MaxBusy    float64 `json:"max_cpu_busy_percent"`
	MeanIOWait float64 `json:"mean_cpu_iowait_percent"`
	MeanSteal  float64 `json:"mean_cpu_steal_percent"`
}

// roundHosts are one round's samples, kept for the plots.
type roundHosts struct {
	label string
	hosts []hostmetrics.Host
}

// readHosts reads every sampled host's file of every round.
func (r *Report) readHosts(runDir string, p *plan.Plan) {
	if p.Benchmark == "crud" || p.TPCC.Search != nil {
		return // they do not sample (stages.samplesHosts)
	}
	byRound := map[string][]stages.ResultFile{}
	var order []plan.Round
	for _, f := range stages.HostStatFiles(p, p.Rounds()) {
		if _, ok := byRound[f.Round.Label]; !ok {
			order = append(order, f.Round)
		}
		byRound[f.Round.Label] = append(byRound[f.Round.Label], f)
	}
	workload := map[string]bool{}
	for _, h := range p.Workload {
		workload[h.Name] = true
	}
	for _, rd := range order {
		from, to := measuredWindow(runDir, p, rd)
		var wl, db []hostmetrics.HostStats
		got := roundHosts{label: rd.Label}
		for _, f := range byRound[rd.Label] {
			samples, err := hostmetrics.ReadFile(filepath.Join(runDir, f.Local))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				r.Problems = append(r.Problems, err.Error())
				continue
			}
			if len(samples) == 0 {
				continue
			}
			role := "database"
			if workload[f.Host.Name] {
				role = "workload"
			}
			st := hostmetrics.Stats(f.Host.Name, samples, from, to)
			m := HostMetric{Round: rd.Label, Host: f.Host.Name, Role: role, File: f.Local, Samples: st.Samples,
				MedianBusy: round2(st.MedianBusy), MaxBusy: round2(st.MaxBusy)}
			m.MeanIOWait, m.MeanSteal = meanCPU(samples, from, to)
			r.HostMetrics = append(r.HostMetrics, m)
			if role == "workload" {
				wl = append(wl, st)
			} else {
				db = append(db, st)
			}
			got.hosts = append(got.hosts, hostmetrics.Host{Name: f.Host.Name, Samples: samples})
		}
		for _, fd := range hostmetrics.ClientBound(wl, db) {
			msg := fd.Message
			if rd.Label != "" {
				msg = "round " + rd.Label + ": " + msg
			}
			r.Warnings = append(r.Warnings, msg)
		}
		if len(got.hosts) > 0 {
			r.hostSamples = append(r.hostSamples, got)
		}
	}
}

// measuredWindow is the round's measured interval from the workload hosts'
// result files: the common start instant plus the ramp, for the duration.
// Without a start instant (a single workload host starts at once) it is
// unknown, and every sample counts.
func measuredWindow(runDir string, p *plan.Plan, rd plan.Round) (from, to time.Time) {
	for i, h := range p.Workload {
		res, err := result.ReadResult(filepath.Join(runDir, "results", h.Name, result.ResultFileFor(plan.HistogramFile(p, i, rd))))
		if err != nil || res.StartAt == nil {
			continue
		}
		from = res.StartAt.Add(time.Duration(res.RampSeconds * float64(time.Second)))
		return from, from.Add(time.Duration(res.DurationSeconds * float64(time.Second)))
	}
	return time.Time{}, time.Time{}
}

func meanCPU(samples []hostmetrics.Sample, from, to time.Time) (iowait, steal float64) {
	n := 0
	for _, s := range samples {
		if (!from.IsZero() && s.Time.Before(from)) || (!to.IsZero() && s.Time.After(to)) {
			continue
		}
		iowait += s.CPU.IOWait
		steal += s.CPU.Steal
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return round2(iowait / float64(n)), round2(steal / float64(n))
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// hostPlotName is the CPU plot of a round's hosts.
func hostPlotName(label string) string {
	if label == "" {
		return "hosts-cpu.svg"
	}
	return "hosts-cpu." + label + ".svg"
}

// plotHosts writes one CPU plot per round (a panel per host) and returns
// the files written.
func (r *Report) plotHosts(runDir string) []string {
	var out []string
	for _, rh := range r.hostSamples {
		name := hostPlotName(rh.label)
		f, err := os.Create(filepath.Join(runDir, name))
		if err != nil {
			r.Problems = append(r.Problems, name+": "+err.Error())
			continue
		}
		err = hostmetrics.PlotCPU(f, rh.hosts)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			r.Problems = append(r.Problems, name+": "+err.Error())
			continue
		}
		out = append(out, name)
	}
	return out
}

// writeHostMetrics renders the hosts section of report.md.
func writeHostMetrics(b *strings.Builder, r *Report, plots []string) {
	if len(r.HostMetrics) == 0 {
		return
	}
	b.WriteString("## Hosts during the run\n\n")
	if len(r.HostMetrics) > 0 {
		fmt.Fprintf(b, "CPU of every host over the measured window (`benchrig hoststat`, one sample a second; busy is user + system + irq + steal). A workload host at %.0f %% or more while every database host is below %.0f %% makes the result client-bound.\n\n",
			hostmetrics.SaturatedBusy, hostmetrics.HeadroomBusy)
		b.WriteString("| round | host | role | samples | median busy % | max busy % | mean iowait % | mean steal % |\n|---|---|---|---:|---:|---:|---:|---:|\n")
		for _, m := range r.HostMetrics {
			rd := Escape(m.Round)
			if rd == "" {
				rd = "-"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %d | %.1f | %.1f | %.1f | %.1f |\n", rd, Escape(m.Host), Escape(m.Role), m.Samples, m.MedianBusy, m.MaxBusy, m.MeanIOWait, m.MeanSteal)
		}
		b.WriteString("\n")
	}
	for _, p := range plots {
		b.WriteString(image(p))
	}
}
