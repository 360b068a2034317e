package tpcc

import (
	"strings"
	"testing"
)

// TestDataGeneration: IMPORTed data (the nodes never run the generator's
// Validate) has C = 0 while workload's runs draw C_LAST with the seed's
// C-Load, 103 for seed 1: a delta of 103, within clause 2.1.6.1; data
// from workload init has C-Run = C-Load, delta 0, outside it.
func TestDataGeneration(t *testing.T) {
	for _, tc := range []struct {
		l        Loader
		run      bool
		cLoad    int
		valid    string
		contains string
	}{
		{LoaderNodes, true, 0, "true", "delta 103, within"},
		{LoaderClient, true, 103, "false", "delta 0, outside"},
		{LoaderBenchrig, false, 103, "", "benchrig_meta"},
	} {
		d := NewDataGeneration(tc.l, 0, tc.run)
		if d.CLoad != tc.cLoad || !strings.Contains(d.Note, tc.contains) {
			t.Errorf("%v: %+v, want C-Load %d and %q", tc.l, d, tc.cLoad, tc.contains)
		}
		valid := ""
		if d.Valid != nil {
			valid = map[bool]string{true: "true", false: "false"}[*d.Valid]
		}
		if valid != tc.valid {
			t.Errorf("%v: valid %q, want %q", tc.l, valid, tc.valid)
		}
	}
}
