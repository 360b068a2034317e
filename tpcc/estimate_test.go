package tpcc

import (
	"strings"
	"testing"
	"time"
)

func TestEstimateImport(t *testing.T) {
	// The published points the rates come from reproduce themselves.
	e := EstimateImport(100000, 81)
	if e.Duration != 6*time.Hour {
		t.Errorf("100k on 81 nodes: %s, want 6h (the rate's source)", e.Duration)
	}
	if e.Bytes != 8_000_000_000_000 {
		t.Errorf("100k: %d bytes, want 8 TB", e.Bytes)
	}
	// ~0.5 M rows per warehouse: 49.9 billion for 100k (§4.3 says 49.8B).
	if e.Rows < 49_800_000_000 || e.Rows > 50_000_000_000 {
		t.Errorf("100k: %d rows", e.Rows)
	}
	if f := EstimateImport(10000, 15).Fastest; f != 2*time.Hour {
		t.Errorf("10k on 15 nodes at the 10k rate: %s, want 2h", f)
	}
	// 10 warehouses: 10 * 499,011 + 3,001,222 lines + 100,000 items.
	if r := EstimateImport(10, 3).Rows; r != 10*199011+3001222+100000 {
		t.Errorf("10 warehouses: %d rows", r)
	}
	s := e.String()
	for _, want := range []string{"49.91G rows", "8.0 TB", "about 6h0m0s", "206 warehouses per node-hour", "81 nodes"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
}
