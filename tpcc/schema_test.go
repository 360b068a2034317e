package tpcc

import (
	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"strings"
	"testing"
)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, name+".golden", []byte(got))
}

func TestSchemaGolden(t *testing.T) {
	p1, _ := NewPartitions(10, 10, 1)
	p3, _ := NewPartitions(20, 20, 3)
	for _, tc := range []struct {
		name string
		o    SchemaOptions
	}{
		{"schema_postgres", SchemaOptions{Dialect: Postgres, Parts: p1}},
		{"schema_postgres_partitions3", SchemaOptions{Dialect: Postgres, Parts: p3}},
		{"schema_cockroach", SchemaOptions{Dialect: Cockroach, Parts: p1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden(t, tc.name, strings.Join(SchemaStatements(tc.o), ";\n\n")+";\n")
		})
	}
}

func TestCockroachPartitionGolden(t *testing.T) {
	p, _ := NewPartitions(20, 20, 3)
	for _, tc := range []struct {
		name     string
		strategy PartitionStrategy
		zones    []string
	}{
		{"cockroach_partitions3_replication", Replication, nil},
		{"cockroach_partitions3_leases", Leases, nil},
		{"cockroach_partitions3_zones", Replication, []string{"us-east1-b", "us-west1-b", "europe-west2-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stmts, err := PartitionStatements(p, tc.strategy, tc.zones)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, strings.Join(stmts, ";\n")+";\n")
		})
	}
	if _, err := PartitionStatements(p, Replication, []string{"a", "b"}); err == nil {
		t.Error("2 zones for 3 partitions accepted")
	}
}

func TestColumnNames(t *testing.T) {
	want := map[string]int{"item": 5, "warehouse": 9, "district": 11, "customer": 21, "history": 8,
		`"order"`: 8, "new_order": 3, "order_line": 10, "stock": 17}
	ts := schemaTables()
	if len(ts) != 9 {
		t.Fatalf("%d tables, want 9", len(ts))
	}
	for _, tb := range ts {
		if n := len(tb.columnNames()); n != want[tb.Name] {
			t.Errorf("%s has %d columns, want %d (clause 1.3)", tb.Name, n, want[tb.Name])
		}
	}
}
