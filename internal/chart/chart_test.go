package chart

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/golden"
)

// wellFormed parses the document as XML: a browser refuses an SVG that
// is not.
func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
	}
}

func TestLineAndBarsGolden(t *testing.T) {
	var buf bytes.Buffer
	p := Page{Title: `a <title> & "quotes"`, Cols: 2, Panels: []Panel{
		Line{Title: "linear", XLabel: "seconds", YLabel: "tpmC", Series: []Series{
			{Label: "run", X: []float64{1, 2, 3, 4}, Y: []float64{10, 30, 20, 25}},
			{Label: "mean", X: []float64{1, 4}, Y: []float64{21, 21}, Dashed: true},
			{Label: "range", X: []float64{2, 3}, Y: []float64{30, 20}, Low: []float64{25, 15}, High: []float64{35, 22}, Markers: true},
		}},
		Line{Title: "log x", XLabel: "ms", YLabel: "percentile", LogX: true, YMin: 0, YMax: 100, Series: []Series{
			{Label: "A", X: []float64{0, 0.4, 3, 80}, Y: []float64{0, 50, 90, 100}},
		}},
		Bars{Title: "bars", YLabel: "ms", Categories: []string{"newOrder", "payment"}, Series: []BarSeries{
			{Label: "p50", Values: []float64{3, 2}}, {Label: "p99", Values: []float64{12, 9}},
		}},
	}}
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, buf.Bytes())
	for _, want := range []string{"a &lt;title&gt; &amp; &#34;quotes&#34;", "newOrder", "percentile", "stroke-dasharray", "<circle"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	golden.Check(t, "page.svg", buf.Bytes())
}

func TestTicks(t *testing.T) {
	lo, hi, ts := linearTicks(3, 97, 5)
	if lo != 0 || hi != 100 || len(ts) != 6 || ts[1].label != "20" {
		t.Errorf("linearTicks(3, 97) = %v, %v, %v", lo, hi, ts)
	}
	lo, hi, ts = logTicks(0.3, 420)
	if lo != 0.1 || hi != 1000 || ts[0].label != "0.1" || ts[len(ts)-1].label != "1000" {
		t.Errorf("logTicks(0.3, 420) = %v, %v, %v", lo, hi, ts)
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0"}, {12345, "12.35k"}, {2.5e6, "2.5M"}, {3, "3"}, {0.125, "0.125"}, {-40, "-40"}} {
		if got := Format(c.v); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestEmptyPanels(t *testing.T) {
	var buf bytes.Buffer
	if err := (Page{Panels: []Panel{Line{}, Bars{}}}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, buf.Bytes())
	if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
		t.Errorf("empty charts produce NaN/Inf coordinates:\n%s", buf.String())
	}
}
