package hostmetrics

import (
	"io"

	"github.com/benchrig/benchrig/internal/chart"
)

// Host is one host's samples, for plotting.
type Host struct {
	Name    string
	Samples []Sample
}

// seconds are the samples' times since the first.
func seconds(ss []Sample) []float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = s.Time.Sub(ss[0].Time).Seconds()
	}
	return xs
}

func cpuPanel(h Host) chart.Line {
	xs := seconds(h.Samples)
	get := func(f func(CPU) float64) []float64 {
		ys := make([]float64, len(h.Samples))
		for i, s := range h.Samples {
			ys[i] = f(s.CPU)
		}
		return ys
	}
	return chart.Line{Title: h.Name + ": CPU", XLabel: "seconds", YLabel: "% of all CPUs", YMin: 0, YMax: 100, Series: []chart.Series{
		{Label: "busy", X: xs, Y: get(CPU.Busy)},
		{Label: "user", X: xs, Y: get(func(c CPU) float64 { return c.User })},
		{Label: "system", X: xs, Y: get(func(c CPU) float64 { return c.System })},
		{Label: "iowait", X: xs, Y: get(func(c CPU) float64 { return c.IOWait }), Dashed: true},
		{Label: "steal", X: xs, Y: get(func(c CPU) float64 { return c.Steal }), Dashed: true},
	}}
}

// PlotCPU draws every host's CPU, one panel per host.
func PlotCPU(w io.Writer, hosts []Host) error {
	p := chart.Page{Title: "host CPU during the run", Cols: 2, PanelW: 560, PanelH: 300}
	for _, h := range hosts {
		p.Panels = append(p.Panels, cpuPanel(h))
	}
	return p.Write(w)
}

// PlotHost draws one host in detail: CPU, then disk and network
// throughput in MB/s (all devices and interfaces summed).
func PlotHost(w io.Writer, h Host) error {
	xs := seconds(h.Samples)
	var rd, wr, rx, tx []float64
	for _, s := range h.Samples {
		var a, b, c, d float64
		for _, k := range s.Disks {
			a += k.ReadBytes / 1e6
			b += k.WriteBytes / 1e6
		}
		for _, n := range s.Net {
			c += n.RxBytes / 1e6
			d += n.TxBytes / 1e6
		}
		rd, wr, rx, tx = append(rd, a), append(wr, b), append(rx, c), append(tx, d)
	}
	io := chart.Line{Title: h.Name + ": disk and network", XLabel: "seconds", YLabel: "MB/s", Series: []chart.Series{
		{Label: "disk read", X: xs, Y: rd}, {Label: "disk write", X: xs, Y: wr},
		{Label: "net rx", X: xs, Y: rx, Dashed: true}, {Label: "net tx", X: xs, Y: tx, Dashed: true},
	}}
	return chart.Page{Cols: 1, PanelW: 760, PanelH: 300, Panels: []chart.Panel{cpuPanel(h), io}}.Write(w)
}
