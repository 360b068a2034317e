package histogram

import (
	"errors"
	"strings"
	"testing"
)

func TestWorkloadFinalLine(t *testing.T) {
	// The v25.4 Medium page's published line (performance-benchmarking-
	// with-tpcc-medium.md:227-228 at cockroachdb/docs 79e9a5d0), after a
	// run's last ticks and the audit.
	out := "  1800.0s        0          168.0          170.1     62.9     75.5    104.9    151.0 stockLevel\n" +
		"Audit check 9.2.1.7: PASS\n\n" + FinalHeader + "\n" +
		" 1800.0s   160420.0  96.0%    303.1    285.2    570.4    671.1    939.5   4160.7\n"
	got, err := ParseFinalLine([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := FinalLine{ElapsedSeconds: 1800, TpmC: 160420, Efficiency: 96, AvgMs: 303.1, P50Ms: 285.2, P90Ms: 570.4, P95Ms: 671.1, P99Ms: 939.5, MaxMs: 4160.7}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ name, out, want string }{
		{"killed before the end", "   10.0s        0            1.0            1.0      5.0      5.0      5.0      5.0 newOrder\n", "no workload totals line"},
		{"header without a row", FinalHeader + "\n", "no workload totals line"},
		{"short row", FinalHeader + "\n 1800.0s 160420.0 96.0%\n", "3 fields"},
		{"no s", FinalHeader + "\n 1800.0 160420.0 96.0% 1 1 1 1 1 1\n", "does not end in s"},
		{"no %", FinalHeader + "\n 1800.0s 160420.0 96.0 1 1 1 1 1 1\n", "does not end in %"},
		{"negative", FinalHeader + "\n 1800.0s -5 96.0% 1 1 1 1 1 1\n", "field 2"},
		{"NaN", FinalHeader + "\n 1800.0s NaN 96.0% 1 1 1 1 1 1\n", "field 2"},
		{"escape", FinalHeader + "\n 1800.0s \x1b[2J 96.0% 1 1 1 1 1 1\n", "field 2"},
		{"long", FinalHeader + "\n" + strings.Repeat("1", 300) + "\n", "bytes"},
	} {
		_, err := ParseFinalLine([]byte(tc.out))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// The last totals line counts: a log holding a partitioning run's
	// and then the measured run's.
	two := FinalHeader + "\n 60.0s 10.0 1.0% 1 1 1 1 1 1\n" + FinalHeader + "\n 1800.0s 20.0 2.0% 1 1 1 1 1 1\n"
	if got, err := ParseFinalLine([]byte(two)); err != nil || got.TpmC != 20 {
		t.Errorf("two runs: %+v, %v", got, err)
	}
	if _, err := ParseFinalLine(nil); !errors.Is(err, ErrNoFinalLine) {
		t.Errorf("empty: %v", err)
	}
}

func FuzzParseFinalLine(f *testing.F) {
	f.Add([]byte(FinalHeader + "\n 1800.0s   160420.0  96.0%    303.1    285.2    570.4    671.1    939.5   4160.7\n"))
	f.Add([]byte(FinalHeader + "\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		l, err := ParseFinalLine(out)
		if err == nil && (l.TpmC < 0 || l.Efficiency < 0) {
			t.Fatalf("accepted %+v", l)
		}
	})
}
