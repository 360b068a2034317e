package openmetrics

import (
	"bytes"
	"math"
	"testing"
)

// The checker must be able to fail: each exposition breaks one rule.
func TestLintRejects(t *testing.T) {
	for _, bad := range []string{
		"# TYPE x gauge\nx 1\n",                         // no EOF
		"x 1\n# EOF\n",                                  // no TYPE
		"# TYPE x counter\nx 1\n# EOF\n",                // counter without _total
		"# TYPE x gauge\nx{a=\"b\"} one\n# EOF\n",       // bad value
		"# TYPE x gauge\nx{a=\"b\",a=\"c\"} 1\n# EOF\n", // repeated label
		"# TYPE x gauge\n# TYPE y gauge\nx 1\n# EOF\n",  // sample outside family
		"# TYPE x_ms gauge\n# UNIT x_ms seconds\nx_ms 1\n# EOF\n",
		"# TYPE x gauge\nx{quantile=\"0.5\"} 1\n# EOF\n",
		"# TYPE x gauge\nx{le=\"0.5\"} 1\n# EOF\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n# EOF\n", // falling buckets
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n# EOF\n", // _count != +Inf
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n# EOF\n",                          // no +Inf
	} {
		if len(Lint(bad)) == 0 {
			t.Errorf("Lint accepted %q", bad)
		}
	}
}

// What Write writes passes Lint, escapes label values and HELP, and
// leaves out families without samples.
func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	err := Write(&buf, []Family{
		{Name: "a_total_things", Type: "counter", Help: `counts "things" \ here`, Samples: []Sample{{Suffix: "_total", Labels: [][2]string{{"k", "v\"1\n"}}, Value: 3}}},
		{Name: "empty", Type: "gauge", Help: "never written"},
		{Name: "lat_seconds", Type: "histogram", Unit: "seconds", Help: "h", Samples: []Sample{
			{Suffix: "_bucket", Labels: [][2]string{{"txn", "x"}, {"le", "0.1"}}, Value: 1},
			{Suffix: "_bucket", Labels: [][2]string{{"txn", "x"}, {"le", "+Inf"}}, Value: 2},
			{Suffix: "_count", Labels: [][2]string{{"txn", "x"}}, Value: 2},
			{Suffix: "_sum", Labels: [][2]string{{"txn", "x"}}, Value: 0.3},
		}},
		{Name: "g", Type: "gauge", Help: "h", Samples: []Sample{{Value: math.Inf(1)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `# TYPE a_total_things counter
# HELP a_total_things counts \"things\" \\ here
a_total_things_total{k="v\"1\n"} 3
# TYPE lat_seconds histogram
# UNIT lat_seconds seconds
# HELP lat_seconds h
lat_seconds_bucket{txn="x",le="0.1"} 1
lat_seconds_bucket{txn="x",le="+Inf"} 2
lat_seconds_count{txn="x"} 2
lat_seconds_sum{txn="x"} 0.3
# TYPE g gauge
# HELP g h
g +Inf
# EOF
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	for _, p := range Lint(buf.String()) {
		t.Error(p)
	}
}
