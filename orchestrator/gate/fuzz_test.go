package gate

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func FuzzParseLatencyLimit(f *testing.F) {
	for _, s := range []string{"newOrder=50ms", "*=2s", "=", "x=", "a=b=c", "newOrder=-1s", "payment=1h30m"} {
		f.Add("p95", s)
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		l, err := ParseLatencyLimit(p, s)
		if err == nil && (l.Max <= 0 || l.Op == "" || l.Percentile != p) {
			t.Fatalf("accepted %q %q as %+v", p, s, l)
		}
	})
}

func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"5%", "0", "100", "1e2", "-0", "Inf", "NaN", "5%%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParsePercent(s); err == nil && (v < 0 || v > 100 || v != v) {
			t.Fatalf("accepted %q as %v", s, v)
		}
	})
}

// A plan can carry thresholds: they decode strictly from YAML.
func TestThresholdsFromYAML(t *testing.T) {
	src := `
min_tpmc: 1200
min_efficiency_percent: 85
latency:
  - {op: newOrder, percentile: p95, max: 50ms}
  - {op: "*", percentile: p99, max: 2s}
max_errors: 0
max_regression_percent: 5
`
	var th Thresholds
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&th); err != nil {
		t.Fatal(err)
	}
	if th.MinTpmC != 1200 || th.MinEfficiency != 85 || len(th.Latency) != 2 || th.Latency[0].Max != 50*time.Millisecond ||
		th.Latency[1].Op != "*" || th.MaxErrors == nil || *th.MaxErrors != 0 || th.MaxRegressionPercent != 5 {
		t.Errorf("decoded %+v", th)
	}
}
