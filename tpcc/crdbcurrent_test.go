package tpcc

import (
	"strings"
	"testing"
)

// TestCurrentGeneratorFlags: a v25.1+ import sends exactly the generator
// flags of that release's tpcc.go (families, fks, seed, warehouses), so
// --replicate-static-columns, a RuntimeOnly flag there, stays out of the
// sources; the statements are CREATE TABLE + IMPORT INTO. v24.3, whose
// flag set was not read, still asks for --generator-flags.
func TestCurrentGeneratorFlags(t *testing.T) {
	o := ImportOptions{Version: Version{25, 4}, Warehouses: 10, Seed: 1, FKs: true, Nodes: 3,
		ReplicateStaticColumns: true, Schema: ImportSchema(Version{25, 4}, true)}
	plan, err := PlanImport(o)
	if err != nil {
		t.Fatal(err)
	}
	const want = "workload:///csv/tpcc/warehouse?families=false&fks=true&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"
	if s := plan.Imports[0].Sources[0]; s != want {
		t.Errorf("source\n got %s\nwant %s", s, want)
	}
	if !strings.HasPrefix(plan.Imports[0].SQL, `IMPORT INTO "warehouse"`) || len(plan.CreateTables) != 9 {
		t.Errorf("want CREATE TABLE + IMPORT INTO, got %d tables, %s", len(plan.CreateTables), plan.Imports[0].SQL)
	}
	o.Version = Version{24, 3}
	if _, err := PlanImport(o); err == nil || !strings.Contains(err.Error(), "--generator-flags") {
		t.Errorf("v24.3: %v", err)
	}
}
