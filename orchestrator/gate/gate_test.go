package gate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/compare"
)

const fixtures = "../compare/testdata/"

func load(t *testing.T, name string) *compare.Run {
	t.Helper()
	r, err := compare.Load(fixtures + name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func limit(t *testing.T, p, s string) LatencyLimit {
	t.Helper()
	l, err := ParseLatencyLimit(p, s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func i64(v int64) *int64 { return &v }

// runA: tpmC 49.2..50.8 (median 50.0), newOrder p95 median 11.03 ms,
// errors 0+1+0+0 (median 0), four repeats. runB: tpmC median 46.9, every
// repeat below runA's. single: one run, 48.3, no error counts. three:
// three repeats around 49.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name     string
		run      string
		th       Thresholds
		baseline string
		fail     string // "" passes; else a substring of the one-line reason
	}{
		{"no thresholds", "runA", Thresholds{}, "", ""},
		{"min tpmc met", "runA", Thresholds{MinTpmC: 50}, "", ""},
		{"min tpmc missed", "runB", Thresholds{MinTpmC: 48}, "", "tpmC 46.9 < 48 (min-tpmc)"},
		{"min efficiency missed", "single", Thresholds{MinEfficiency: 96}, "", "efficiency 95.80% < 96% (min-efficiency)"},
		{"p95 met", "runA", Thresholds{Latency: []LatencyLimit{limit(t, "p95", "newOrder=12ms")}}, "", ""},
		{"p95 missed", "runA", Thresholds{Latency: []LatencyLimit{limit(t, "p95", "newOrder=11ms")}}, "", "newOrder p95 11.03ms > 11ms (max-p95)"},
		{"p99 every transaction", "runA", Thresholds{Latency: []LatencyLimit{limit(t, "p99", "*=40ms")}}, "", "delivery p99 46.2ms > 40ms (max-p99)"},
		{"unknown transaction", "runA", Thresholds{Latency: []LatencyLimit{limit(t, "p99", "newOrdr=40ms")}}, "", "newOrdr: no such transaction"},
		{"errors met", "runA", Thresholds{MaxErrors: i64(0)}, "", ""},
		{"errors missed", "runB", Thresholds{MaxErrors: i64(0)}, "", "0.5 errors > 0 (max-errors)"},
		{"regression within", "runB", Thresholds{MaxRegressionPercent: 7}, "runA", ""},
		{"regression significant", "runB", Thresholds{MaxRegressionPercent: 5}, "runA", "tpmC 46.9 is 6.20% below runA's 50.0 (max-regression 5%), p=0.029 n=4+4"},
		{"regression single runs", "single", Thresholds{MaxRegressionPercent: 3}, "runA", "is 3.40% below"},
		// 4+3 repeats cannot reach p < 0.05: the percentage alone decides.
		{"regression few repeats", "three", Thresholds{MaxRegressionPercent: 1}, "runA", "is 2.00% below"},
		{"improvement", "runA", Thresholds{MaxRegressionPercent: 1}, "runB", ""},
		{"several at once", "runB", Thresholds{MinTpmC: 48, Latency: []LatencyLimit{limit(t, "max", "delivery=50ms")}}, "", "tpmC 46.9 < 48 (min-tpmc); delivery max 99.97ms > 50ms (max-max)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var base *compare.Run
			if tc.baseline != "" {
				base = load(t, tc.baseline)
			}
			err := Check(load(t, tc.run), tc.th, base)
			var fe *FailedError
			switch {
			case tc.fail == "" && err != nil:
				t.Fatalf("failed: %v", err)
			case tc.fail != "" && !errors.As(err, &fe):
				t.Fatalf("err = %v, want a FailedError with %q", err, tc.fail)
			case tc.fail != "" && !strings.Contains(err.Error(), tc.fail):
				t.Fatalf("reason %q lacks %q", err, tc.fail)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("reason is not one line: %q", err)
			}
		})
	}
}

// A noisy drop: with 4+4 repeats the test can see a change; when it sees
// none, the drop passes whatever its size.
func TestCheckRegressionNoise(t *testing.T) {
	a, b := load(t, "runA"), load(t, "runA")
	b.Name = "runA-again"
	// Interleave b's tpmC with a's but with a lower median (-3 %).
	for i, v := range []float64{50.9, 47.0, 47.5, 49.8} {
		b.Report.Rounds[i].Result.TpmC = v
	}
	if err := Check(b, Thresholds{MaxRegressionPercent: 1}, a); err != nil {
		t.Errorf("a non-significant drop failed the gate: %v", err)
	}
}

func TestCheckErrorsUnknown(t *testing.T) {
	r := load(t, "single")
	for i := range r.Report.Result.Ops {
		r.Report.Result.Ops[i].Errors = nil
	}
	if err := Check(r, Thresholds{MaxErrors: i64(10)}, nil); err == nil || !strings.Contains(err.Error(), "no error counts") {
		t.Errorf("unknown errors passed the gate: %v", err)
	}
}

func TestCheckNotCheckable(t *testing.T) {
	if err := Check(load(t, "runA"), Thresholds{MaxRegressionPercent: 5}, nil); err == nil || !strings.Contains(err.Error(), "--against") {
		t.Errorf("regression without baseline: %v", err)
	}
	r := load(t, "runA")
	r.Report.Rounds[0].Flag = "active-warehouses"
	var fe *FailedError
	if err := Check(r, Thresholds{MinTpmC: 1}, nil); err == nil || errors.As(err, &fe) {
		t.Errorf("sweep checked: %v", err)
	}
}

func TestParse(t *testing.T) {
	if l, err := ParseLatencyLimit("p95", "newOrder=50ms"); err != nil || l != (LatencyLimit{Op: "newOrder", Percentile: "p95", Max: 50 * time.Millisecond}) {
		t.Errorf("ParseLatencyLimit = %+v, %v", l, err)
	}
	for _, bad := range [][2]string{{"p95", "newOrder"}, {"p95", "=5ms"}, {"p95", "newOrder=-5ms"}, {"p95", "newOrder=fast"}, {"p42", "newOrder=5ms"}} {
		if _, err := ParseLatencyLimit(bad[0], bad[1]); err == nil {
			t.Errorf("ParseLatencyLimit(%q, %q) accepted", bad[0], bad[1])
		}
	}
	for in, want := range map[string]float64{"5%": 5, "2.5": 2.5, " 0% ": 0} {
		if got, err := ParsePercent(in); err != nil || got != want {
			t.Errorf("ParsePercent(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "-1%", "101%", "five", "NaN"} {
		if _, err := ParsePercent(bad); err == nil {
			t.Errorf("ParsePercent(%q) accepted", bad)
		}
	}
}

func TestCheckSkipsEmptyOperations(t *testing.T) {
	r := load(t, "single")
	op := &r.Report.Result.Ops[4] // stockLevel
	op.Count, op.P95 = 0, 0
	if err := Check(r, Thresholds{Latency: []LatencyLimit{limit(t, "p95", "*=1h")}}, nil); err != nil {
		t.Errorf("* limit with an empty transaction: %v", err)
	}
	err := Check(r, Thresholds{Latency: []LatencyLimit{limit(t, "p95", "stockLevel=1h")}}, nil)
	if err == nil || !strings.Contains(err.Error(), "stockLevel: no transactions completed") {
		t.Errorf("named empty transaction: %v", err)
	}
}

func TestEvaluatePassed(t *testing.T) {
	passed, err := Evaluate(load(t, "runB"), Thresholds{MinTpmC: 48, MaxErrors: i64(5), MaxRegressionPercent: 7,
		Latency: []LatencyLimit{limit(t, "p95", "newOrder=50ms")}}, load(t, "runA"))
	var fe *FailedError
	if !errors.As(err, &fe) || len(fe.Failures) != 1 {
		t.Fatalf("err = %v", err)
	}
	want := []string{"newOrder p95 11.14ms <= 50ms (max-p95)", "0.5 errors <= 5 (max-errors)", "tpmC 46.9 against runA's 50.0: -6.20% (max-regression 7%)"}
	if strings.Join(passed, "\n") != strings.Join(want, "\n") {
		t.Errorf("passed:\n%s\nwant:\n%s", strings.Join(passed, "\n"), strings.Join(want, "\n"))
	}
}
