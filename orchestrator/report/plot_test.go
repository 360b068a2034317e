package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The three plots are well-formed SVG with their title, axis labels and
// legend, written with the small chart writer (no plotting library).
func TestPlots(t *testing.T) {
	dir := t.TempDir()
	r := &Report{Plan: "local", Result: &Result{TpmC: 120, Ops: []Op{
		{Name: "newOrder", P50: 3, P90: 6, P95: 8, P99: 15},
		{Name: "payment", P50: 2, P90: 4, P95: 5, P99: 9},
	}}, Points: []Point{
		{Flag: "workers", Value: 1, TpmC: Stats{Mean: 100, Min: 95, Max: 104}},
		{Flag: "workers", Value: 2, TpmC: Stats{Mean: 180, Min: 170, Max: 190}},
	}}
	for i := range 60 {
		r.Series = append(r.Series, TickPoint{Second: float64(i + 1), TpmC: float64(100 + i%7*10)})
	}
	for _, c := range []struct {
		file string
		draw func(string, *Report) error
		want []string
	}{
		{"tpmc.svg", plotTpmC, []string{"tpmC over the run", "seconds since the measured run began", "tpmC, 10 s average", "merged tpmC of the run"}},
		{"latency.svg", plotLatency, []string{"latency percentiles per transaction", "milliseconds", "newOrder", "payment", "p99"}},
		{"sweep.svg", plotSweep, []string{"tpmC against --workers", "--workers", "bars: min to max"}},
	} {
		path := filepath.Join(dir, c.file)
		if err := c.draw(path, r); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: not well-formed: %v", c.file, err)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s lacks %q", c.file, w)
			}
		}
	}
}
