package report

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plotTpmC draws merged tpmC per second of the run.
func plotTpmC(path string, r *Report) error {
	p := plot.New()
	p.Title.Text = r.Plan + ": tpmC over the run (all workload hosts)"
	p.X.Label.Text = "seconds since the measured run began"
	p.Y.Label.Text = "tpmC (New-Orders per minute)"
	pts := make(plotter.XYs, len(r.Series))
	for i, s := range r.Series {
		pts[i].X, pts[i].Y = s.Second, s.TpmC
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	p.Add(line, plotter.NewGrid())
	if r.Result != nil {
		mean := plotter.NewFunction(func(float64) float64 { return r.Result.TpmC })
		mean.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
		p.Add(mean)
		p.Legend.Add("per second", line)
		p.Legend.Add("merged tpmC", mean)
		p.Legend.Top = true
	}
	return p.Save(8*vg.Inch, 4*vg.Inch, path)
}

// plotLatency draws p50/p90/p95/p99 per transaction as grouped bars.
func plotLatency(path string, r *Report) error {
	p := plot.New()
	p.Title.Text = r.Plan + ": latency percentiles per transaction"
	p.Y.Label.Text = "milliseconds"
	var names []string
	series := []struct {
		label string
		get   func(Op) float64
	}{
		{"p50", func(o Op) float64 { return o.P50 }},
		{"p90", func(o Op) float64 { return o.P90 }},
		{"p95", func(o Op) float64 { return o.P95 }},
		{"p99", func(o Op) float64 { return o.P99 }},
	}
	for _, o := range r.Result.Ops {
		names = append(names, o.Name)
	}
	w := vg.Points(12)
	for i, s := range series {
		vals := make(plotter.Values, len(r.Result.Ops))
		for j, o := range r.Result.Ops {
			vals[j] = s.get(o)
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = w * vg.Length(i-len(series)/2)
		p.Add(bars)
		p.Legend.Add(s.label, bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	return p.Save(8*vg.Inch, 4*vg.Inch, path)
}
