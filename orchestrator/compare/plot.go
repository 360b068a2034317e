package compare

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/benchrig/benchrig/internal/chart"
	"github.com/benchrig/benchrig/orchestrator/report"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// cdfQuantiles are where a latency distribution is sampled for its plot:
// dense in the tail, where runs usually differ.
var cdfQuantiles = []float64{0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 97, 98, 99, 99.5, 99.9, 99.99, 100}

// PlotCDF draws, per transaction, the latency distribution of every run of
// the first measured point (all its repeats pooled), one panel per
// transaction, runs overlaid. A run's distribution comes from the
// histogram files its report lists; when they are not in the run
// directory (a copied report.json), from the report's percentiles.
func PlotCDF(w io.Writer, c *Comparison, runs []*Run) error {
	if len(c.Groups) == 0 {
		return fmt.Errorf("compare: nothing to plot")
	}
	point := c.Groups[0].Point
	var ops []string
	curves := make([]map[string][2][]float64, len(runs)) // op -> (ms, percentile)
	for i, r := range runs {
		curves[i] = runCurves(r, point)
		for _, res := range results(r.Report, point) {
			for _, o := range res.Ops {
				if !slices.Contains(ops, o.Name) {
					ops = append(ops, o.Name)
				}
			}
		}
	}
	title := "latency distribution per transaction"
	if point != "" {
		title += " (" + point + ")"
	}
	page := chart.Page{Title: title, Cols: 3, PanelW: 460, PanelH: 340}
	for _, op := range ops {
		ln := chart.Line{Title: op, XLabel: "latency (ms, log scale)", YLabel: "percentile", LogX: true, YMin: 0, YMax: 100}
		for i, r := range runs {
			cv := curves[i][op]
			ln.Series = append(ln.Series, chart.Series{Label: r.Name, X: cv[0], Y: cv[1], Dashed: i > 0 && i%2 == 0})
		}
		page.Panels = append(page.Panels, ln)
	}
	return page.Write(w)
}

// results lists the results of one point of a report.
func results(rep *report.Report, point string) []*report.Result {
	if len(rep.Rounds) == 0 {
		if point == "" && rep.Result != nil {
			return []*report.Result{rep.Result}
		}
		return nil
	}
	var out []*report.Result
	for _, rd := range rep.Rounds {
		if rd.Result != nil && pointKey(rd.Flag, rd.Value) == point {
			out = append(out, rd.Result)
		}
	}
	return out
}

func runCurves(r *Run, point string) map[string][2][]float64 {
	res := results(r.Report, point)
	out := map[string][2][]float64{}
	if hists, ok := readHistograms(r.Dir, res); ok {
		for name, h := range hists {
			var xs, ys []float64
			for _, q := range cdfQuantiles {
				xs = append(xs, histogram.Millis(h.ValueAtQuantile(q)))
				ys = append(ys, q)
			}
			out[name] = [2][]float64{xs, ys}
		}
		return out
	}
	// The report's percentiles (median over repeats would hide the
	// spread; the first repeat is a real distribution).
	if len(res) == 0 {
		return out
	}
	for _, o := range res[0].Ops {
		out[o.Name] = [2][]float64{{o.P50, o.P90, o.P95, o.P99, o.Max}, {50, 90, 95, 99, 100}}
	}
	return out
}

// readHistograms merges, per transaction, every histogram file of the
// results; ok is false when any file is missing or unreadable.
func readHistograms(dir string, res []*report.Result) (map[string]*hdr.Histogram, bool) {
	out := map[string]*hdr.Histogram{}
	n := 0
	for _, r := range res {
		for _, f := range r.Files {
			fh, err := os.Open(filepath.Join(dir, f))
			if err != nil {
				return nil, false
			}
			ticks, err := histogram.Decode(fh)
			fh.Close()
			if err != nil {
				return nil, false
			}
			for _, t := range ticks {
				h, err := t.Hist.Histogram()
				if err != nil {
					return nil, false
				}
				cum, ok := out[t.Name]
				if !ok {
					cum = histogram.NewHistogram()
					out[t.Name] = cum
				}
				cum.Merge(h)
			}
			n++
		}
	}
	return out, n > 0
}
