package tpcc

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (rerun with -update if intended):\n%s", name, path, firstDiff(string(want), got))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return ""
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
