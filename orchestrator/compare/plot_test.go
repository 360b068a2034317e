package compare

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

// Without histogram files the curves come from the report's percentiles.
func TestPlotCDFFromPercentiles(t *testing.T) {
	runs := load(t, "runA", "runB")
	c, err := Compare(runs...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := PlotCDF(&buf, c, runs); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, buf.Bytes())
	for _, want := range []string{"newOrder", "stockLevel", "runA", "runB", "latency (ms, log scale)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("CDF plot lacks %q", want)
		}
	}
	golden.Check(t, "cdf.svg", buf.Bytes())
}

// With the run's histogram files, the whole distribution is drawn: one
// point per sampled quantile.
func TestPlotCDFFromHistograms(t *testing.T) {
	dir := t.TempDir()
	write := func(run string, scale int64) *Run {
		h := histogram.NewHistogram()
		for i := int64(1); i <= 1000; i++ {
			if err := h.RecordValue(i * scale * int64(time.Microsecond)); err != nil {
				t.Fatal(err)
			}
		}
		rel := filepath.Join("results", "w1", "workload1.histogram.ndjson")
		path := filepath.Join(dir, run, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := histogram.NewEncoder(&buf).Encode(histogram.Tick{Name: "newOrder", Hist: histogram.Export(h), Elapsed: time.Second, Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile("testdata/single/report.json")
		os.WriteFile(filepath.Join(dir, run, "report.json"), bytes.Replace(data, []byte(`"files": []`), []byte(`"files": ["`+rel+`"]`), 1), 0o644)
		r, err := Load(filepath.Join(dir, run))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	runs := []*Run{write("a", 1), write("b", 2)}
	c, err := Compare(runs...)
	if err != nil {
		t.Fatal(err)
	}
	curves := runCurves(runs[1], c.Groups[0].Point)
	cv := curves["newOrder"]
	if len(cv[0]) != len(cdfQuantiles) {
		t.Fatalf("histogram curve has %d points, want %d", len(cv[0]), len(cdfQuantiles))
	}
	// The median of 2..2000 µs is about 1 ms; the report says 5.04 ms.
	for i, q := range cv[1] {
		if q == 50 && (cv[0][i] < 0.95 || cv[0][i] > 1.05) {
			t.Errorf("median from the histogram = %v ms", cv[0][i])
		}
	}
	var buf bytes.Buffer
	if err := PlotCDF(&buf, c, runs); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, buf.Bytes())
}
