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
	p.Title.Text = r.Plan + ": tpmC over the run, all workload hosts (10 s moving average)"
	p.X.Label.Text = "seconds since the measured run began"
	p.Y.Label.Text = "tpmC (New-Orders per minute)"
	// Per-second counts of a few hundred terminals are mostly zeros and
	// spikes; a 10-second window shows the trend a reader looks for.
	const window = 10
	pts := make(plotter.XYs, len(r.Series))
	top := 0.0
	for i, s := range r.Series {
		sum, n := 0.0, 0
		for j := max(0, i-window+1); j <= i; j++ {
			sum += r.Series[j].TpmC
			n++
		}
		pts[i].X, pts[i].Y = s.Second, sum/float64(n)
		top = max(top, pts[i].Y)
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
		p.Legend.Add("tpmC, 10 s average", line)
		p.Legend.Add("merged tpmC of the run", mean)
		p.Legend.Top = true
		p.Legend.Left = true
		top = max(top, r.Result.TpmC)
	}
	p.Y.Min, p.Y.Max = 0, top*1.35+1 // room for the legend
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
	w := vg.Points(14)
	top := 0.0
	for i, s := range series {
		vals := make(plotter.Values, len(r.Result.Ops))
		for j, o := range r.Result.Ops {
			vals[j] = s.get(o)
			top = max(top, vals[j])
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		// Centre the group of bars on the transaction's tick.
		bars.Offset = w * (vg.Length(i) - vg.Length(len(series)-1)/2)
		p.Add(bars)
		p.Legend.Add(s.label, bars)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min, p.Y.Max = 0, top*1.3+1 // room for the legend
	return p.Save(8*vg.Inch, 4*vg.Inch, path)
}

// plotSweep draws mean tpmC (with min-max bars) against the swept value.
func plotSweep(path string, r *Report) error {
	p := plot.New()
	p.Title.Text = r.Plan + ": tpmC against --" + r.Points[0].Flag
	p.X.Label.Text = "--" + r.Points[0].Flag
	p.Y.Label.Text = "tpmC (mean of the runs; bars: min to max)"
	pts := make(plotter.XYs, len(r.Points))
	errs := make(plotter.YErrors, len(r.Points))
	top := 0.0
	for i, pt := range r.Points {
		pts[i].X, pts[i].Y = float64(pt.Value), pt.TpmC.Mean
		errs[i].Low, errs[i].High = pt.TpmC.Mean-pt.TpmC.Min, pt.TpmC.Max-pt.TpmC.Mean
		top = max(top, pt.TpmC.Max)
	}
	line, marks, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return err
	}
	p.Add(line, marks, bars, plotter.NewGrid())
	p.Y.Min, p.Y.Max = 0, top*1.15+1
	return p.Save(8*vg.Inch, 4*vg.Inch, path)
}
