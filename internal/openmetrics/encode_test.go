package openmetrics_test

import (
	"bytes"
	"math"
	"testing"

	om "github.com/benchrig/benchrig/internal/openmetrics"
	"github.com/benchrig/benchrig/internal/openmetrics/omlint"
)

// What Write writes passes omlint.Lint (the Prometheus parser), escapes label values and HELP, and
// leaves out families without samples.
func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	err := om.Write(&buf, []om.Family{
		{Name: "a_total_things", Type: "counter", Help: `counts "things" \ here`, Samples: []om.Sample{{Suffix: "_total", Labels: [][2]string{{"k", "v\"1\n"}}, Value: 3}}},
		{Name: "empty", Type: "gauge", Help: "never written"},
		{Name: "lat_seconds", Type: "histogram", Unit: "seconds", Help: "h", Samples: []om.Sample{
			{Suffix: "_bucket", Labels: [][2]string{{"txn", "x"}, {"le", "0.1"}}, Value: 1},
			{Suffix: "_bucket", Labels: [][2]string{{"txn", "x"}, {"le", "+Inf"}}, Value: 2},
			{Suffix: "_count", Labels: [][2]string{{"txn", "x"}}, Value: 2},
			{Suffix: "_sum", Labels: [][2]string{{"txn", "x"}}, Value: 0.3},
		}},
		{Name: "g", Type: "gauge", Help: "h", Samples: []om.Sample{{Value: math.Inf(1)}}},
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
	for _, p := range omlint.Lint(buf.String()) {
		t.Error(p)
	}
}
