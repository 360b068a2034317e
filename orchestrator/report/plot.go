package report

import (
	"os"

	"github.com/benchrig/benchrig/internal/chart"
)

// savePage writes a one-panel chart page to path.
func savePage(path string, p chart.Panel) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = chart.Page{PanelW: 800, PanelH: 400, Panels: []chart.Panel{p}}.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// plotTpmC draws merged tpmC per second of the run.
func plotTpmC(path string, r *Report) error {
	// Per-second counts of a few hundred terminals are mostly zeros and
	// spikes; a 10-second window shows the trend a reader looks for.
	const window = 10
	xs := make([]float64, len(r.Series))
	ys := make([]float64, len(r.Series))
	for i, s := range r.Series {
		sum, n := 0.0, 0
		for j := max(0, i-window+1); j <= i; j++ {
			sum += r.Series[j].TpmC
			n++
		}
		xs[i], ys[i] = s.Second, sum/float64(n)
	}
	ln := chart.Line{
		Title:  r.Plan + ": tpmC over the run, all workload hosts (10 s moving average)",
		XLabel: "seconds since the measured run began", YLabel: "tpmC (New-Orders per minute)",
		Series: []chart.Series{{Label: "tpmC, 10 s average", X: xs, Y: ys}},
	}
	if r.Result != nil && len(xs) > 0 {
		ln.Series = append(ln.Series, chart.Series{Label: "merged tpmC of the run", X: []float64{xs[0], xs[len(xs)-1]},
			Y: []float64{r.Result.TpmC, r.Result.TpmC}, Dashed: true})
	}
	return savePage(path, ln)
}

// plotLatency draws p50/p90/p95/p99 per transaction as grouped bars.
func plotLatency(path string, r *Report) error {
	b := chart.Bars{Title: r.Plan + ": latency percentiles per transaction", YLabel: "milliseconds"}
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
		b.Categories = append(b.Categories, o.Name)
	}
	for _, s := range series {
		bs := chart.BarSeries{Label: s.label}
		for _, o := range r.Result.Ops {
			bs.Values = append(bs.Values, s.get(o))
		}
		b.Series = append(b.Series, bs)
	}
	return savePage(path, b)
}

// plotSweep draws mean tpmC (with min-max bars) against the swept value.
func plotSweep(path string, r *Report) error {
	s := chart.Series{Label: "mean tpmC (bars: min to max)", Markers: true}
	for _, pt := range r.Points {
		s.X = append(s.X, float64(pt.Value))
		s.Y = append(s.Y, pt.TpmC.Mean)
		s.Low = append(s.Low, pt.TpmC.Min)
		s.High = append(s.High, pt.TpmC.Max)
	}
	return savePage(path, chart.Line{
		Title:  r.Plan + ": tpmC against --" + r.Points[0].Flag,
		XLabel: "--" + r.Points[0].Flag, YLabel: "tpmC (mean of the runs; bars: min to max)",
		Series: []chart.Series{s},
	})
}
