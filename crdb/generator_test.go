package crdb_test

import (
	"testing"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/tpcc"
)

// TestGeneratorNames: crdb names the generator versions whose layouts
// the benchmark's schema creates by the same strings (crdb must not
// import tpcc, so the strings are written twice and held equal here).
func TestGeneratorNames(t *testing.T) {
	if crdb.Generator21 != tpcc.Version21 || crdb.Generator22 != tpcc.Version22 {
		t.Errorf("crdb %s/%s, tpcc %s/%s", crdb.Generator21, crdb.Generator22, tpcc.Version21, tpcc.Version22)
	}
}
