package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/golden"
)

func load(t *testing.T, names ...string) []*Run {
	t.Helper()
	var runs []*Run
	for _, n := range names {
		r, err := Load("testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

// Goldens of every format for: 4+4 repeats (significant and not), a
// single run (no test), 3 repeats (never significant: a note says so).
func TestCompareGoldens(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []string
	}{
		{"repeats", []string{"runA", "runB"}},
		{"three-runs", []string{"runA", "single", "three"}},
	} {
		c, err := Compare(load(t, tc.runs...)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Formats {
			var buf bytes.Buffer
			if err := Write(&buf, c, f); err != nil {
				t.Fatal(err)
			}
			ext := map[string]string{"text": "txt", "markdown": "md", "json": "json"}[f]
			golden.Check(t, tc.name+"."+ext, buf.Bytes())
			if f == "json" {
				for _, e := range loadSchema(t).Validate(buf.Bytes()) {
					t.Errorf("%s: %s", tc.name, e)
				}
			}
		}
	}
}

func TestCompareSignificance(t *testing.T) {
	c, err := Compare(load(t, "runA", "runB")...)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Delta{}
	for _, m := range c.Groups[0].Metrics {
		got[m.Operation+"/"+m.Name] = m.Deltas[0]
	}
	// tpmC: every B repeat below every A repeat, 4+4: p = 2/70 (to the
	// last bits of benchstat's float arithmetic: 0.028571428571428577).
	if d := got["/tpmc"]; !d.Tested || !d.Significant || !near(*d.P, 2.0/70, 1e-15) || *d.Percent >= 0 {
		t.Errorf("tpmc delta = %+v", d)
	}
	// Latencies interleave: not significant.
	if d := got["newOrder/p50_ms"]; !d.Tested || d.Significant {
		t.Errorf("newOrder p50 delta = %+v", d)
	}
	if _, ok := got["newOrder/retries"]; !ok {
		t.Error("retries are reported in both runs but not compared")
	}
	if _, ok := got["orderStatus/errors"]; ok {
		t.Error("errors compared for a transaction that reports none")
	}
	var buf bytes.Buffer
	if err := Write(&buf, c, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "(p=0.029 n=4+4)") || !strings.Contains(buf.String(), "~ (p=") {
		t.Errorf("text lacks the significance marks:\n%s", buf.String())
	}
}

func TestCompareErrors(t *testing.T) {
	if _, err := Compare(load(t, "runA")...); err == nil {
		t.Error("one run compared")
	}
	if _, err := Load("testdata/nonexistent"); err == nil || !strings.Contains(err.Error(), "benchrig report") {
		t.Errorf("missing report: %v", err)
	}
	c, _ := Compare(load(t, "runA", "runB")...)
	if err := Write(&bytes.Buffer{}, c, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		want   float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {1, 1, 1}, {2, 3, 0.2}} {
		if got := MinP(c.n1, c.n2); !near(got, c.want, 1e-12) {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.want)
		}
	}
}

// A short repeat can complete no transaction of a type; its report then
// says 0 ms, which is no latency at all and must not be a sample.
func TestCompareSkipsEmptyOperations(t *testing.T) {
	runs := load(t, "runA", "runB")
	op := &runs[1].Report.Rounds[0].Result.Ops[2] // orderStatus
	op.Count, op.P50, op.P90, op.P95, op.P99, op.Max = 0, 0, 0, 0, 0, 0
	c, err := Compare(runs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range c.Groups[0].Metrics {
		if m.Operation == "orderStatus" && m.Name == "p50_ms" {
			if v := m.Values[1]; v.N != 3 || v.Median == 0 {
				t.Errorf("orderStatus p50 of runB: %+v", v)
			}
			return
		}
	}
	t.Fatal("no orderStatus p50 row")
}

// TestDeltaCell pins how a change prints: no change is "~", never a signed
// "+0.00%" (0 -> 0 errors read as a rise).
func TestDeltaCell(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		d    Delta
		want string
	}{
		{Delta{}, "–"},
		{Delta{Percent: f(0), N1: 1, N2: 1}, "~"},
		{Delta{Percent: f(0), N1: 4, N2: 1}, "~ (untested n=4+1)"},
		{Delta{Percent: f(5.214), N1: 1, N2: 1}, "+5.21%"},
		{Delta{Percent: f(-3), N1: 1, N2: 1}, "-3.00%"},
		{Delta{Percent: f(5), Tested: true, P: f(0.029), N1: 4, N2: 4, Significant: true}, "+5.00% (p=0.029 n=4+4)"},
		{Delta{Percent: f(5), Tested: true, P: f(0.343), N1: 4, N2: 4}, "~ (p=0.343 n=4+4)"},
	} {
		if got := tc.d.cell(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.d, got, tc.want)
		}
	}
}
