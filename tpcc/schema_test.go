package tpcc

import (
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/tpcc/runspec"
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
		{"schema_postgres", SchemaOptions{Dialect: Postgres, Parts: p1, FKs: true}},
		{"schema_postgres_partitions3", SchemaOptions{Dialect: Postgres, Parts: p3, FKs: true}},
		{"schema_cockroach", SchemaOptions{Dialect: Cockroach, Parts: p1, FKs: true}},
		{"schema_cockroach_2.1.0", SchemaOptions{Dialect: Cockroach, Version: Version21, Parts: p1, FKs: true}},
		{"schema_postgres_fillfactor", SchemaOptions{Dialect: Postgres, Parts: p1, FKs: true, FillFactor: 85}},
		{"schema_postgres_partitions3_fillfactor", SchemaOptions{Dialect: Postgres, Parts: p3, FillFactor: 85}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stmts, err := SchemaStatements(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, strings.Join(stmts, ";\n\n")+";\n")
		})
	}
	if _, err := SchemaStatements(SchemaOptions{Version: "2.0.1"}); err == nil {
		t.Error("unknown generator version accepted")
	}
	for _, o := range []SchemaOptions{
		{Dialect: Cockroach, Parts: p1, FillFactor: 90},
		{Dialect: Postgres, Parts: p1, FillFactor: runspec.MinFillFactor - 1},
		{Dialect: Postgres, Parts: p1, FillFactor: runspec.MaxFillFactor + 1},
		{Dialect: Postgres, Parts: p1, FillFactor: -5},
	} {
		if _, err := SchemaStatements(o); err == nil {
			t.Errorf("fillfactor %d on %s accepted", o.FillFactor, o.Dialect)
		}
	}
}

// TestFillFactorTables: the fillfactor goes to exactly the six tables
// whose rows the transactions update in place (and to their partitions,
// never to a partitioned parent, which PostgreSQL refuses); item, history
// and new_order are only inserted, deleted or read.
func TestFillFactorTables(t *testing.T) {
	p3, _ := NewPartitions(20, 20, 3)
	stmts, err := SchemaStatements(SchemaOptions{Dialect: Postgres, Parts: p3, FillFactor: 85})
	if err != nil {
		t.Fatal(err)
	}
	with := map[string]int{}
	for _, s := range stmts {
		if !strings.HasPrefix(s, "CREATE TABLE") {
			continue
		}
		name := strings.Fields(s)[5]
		if strings.HasSuffix(s, "WITH (fillfactor = 85)") {
			with[strings.TrimSuffix(strings.SplitN(name, "_p", 2)[0], "\"")]++
			if strings.Contains(s, "PARTITION BY") {
				t.Errorf("a partitioned parent takes the fillfactor: %s", FirstLine(s))
			}
		}
	}
	want := map[string]int{"warehouse": 3, "district": 3, "customer": 3, "stock": 3, "order": 3, "order_line": 3}
	for name, n := range want {
		if with[name] != n {
			t.Errorf("%s: %d statements with the fillfactor, want %d (all: %v)", name, with[name], n, with)
		}
	}
	for _, name := range []string{"item", "history", "new_order"} {
		if with[name] != 0 {
			t.Errorf("%s takes the fillfactor: it is never updated in place", name)
		}
	}
}

// workloadDDL is what `workload fixtures import tpcc` creates and alters
// for a generator version: each table as TableSchema gives it to IMPORT
// TABLE / CREATE TABLE, then the foreign keys.
func workloadDDL(t *testing.T, version string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range TableNames() {
		body, err := TableSchema(Cockroach, version, name)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("CREATE TABLE " + name + " (\n" + body + "\n);\n\n")
	}
	for _, fk := range ForeignKeys(Cockroach, version) {
		b.WriteString(fk + ";\n")
	}
	return b.String()
}

// TestWorkloadDDL pins the CockroachDB DDL of generator versions 2.1.0
// and 2.2.0 (goldens), and checks it line by line against
// workload's pkg/workload/tpcc/ddls.go and PostLoad:
// every table's primary key and named indexes, the FK indexes only in
// 2.1.0, the ten foreign keys NOT VALID.
func TestWorkloadDDL(t *testing.T) {
	// §4.3, per table: the primary key, the secondary indexes (by name),
	// and the FK indexes of 2.1.0.
	want := map[string]struct {
		pk      string
		indexes []string
		fkIdx   []string
	}{
		"warehouse": {pk: "primary key (w_id)"},
		"district":  {pk: "primary key (d_w_id, d_id)"},
		"customer": {pk: "primary key (c_w_id, c_d_id, c_id)",
			indexes: []string{"index customer_idx (c_w_id, c_d_id, c_last, c_first)"}},
		"history": {pk: "primary key (h_w_id, rowid)",
			fkIdx: []string{"index history_customer_fk_idx (h_c_w_id, h_c_d_id, h_c_id)", "index history_district_fk_idx (h_w_id, h_d_id)"}},
		`"order"`: {pk: "primary key (o_w_id, o_d_id, o_id DESC)",
			indexes: []string{"unique index order_idx (o_w_id, o_d_id, o_c_id, o_id DESC) storing (o_entry_d, o_carrier_id)"}},
		"new_order":  {pk: "primary key (no_w_id, no_d_id, no_o_id)"},
		"item":       {pk: "primary key (i_id)"},
		"stock":      {pk: "primary key (s_w_id, s_i_id)", fkIdx: []string{"index stock_item_fk_idx (s_i_id)"}},
		"order_line": {pk: "primary key (ol_w_id, ol_d_id, ol_o_id DESC, ol_number)", fkIdx: []string{"index order_line_stock_fk_idx (ol_supply_w_id, ol_i_id)"}},
	}
	// §4.3's ten foreign keys: district→warehouse, customer→district,
	// history→customer, history→district, order→customer,
	// new_order→order, stock→warehouse, stock→item, order_line→order,
	// order_line→stock.
	wantFKs := []string{
		"ALTER TABLE district ADD FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id) NOT VALID",
		"ALTER TABLE customer ADD FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id) NOT VALID",
		"ALTER TABLE history ADD FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer (c_w_id, c_d_id, c_id) NOT VALID",
		"ALTER TABLE history ADD FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id) NOT VALID",
		`ALTER TABLE "order" ADD FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id) NOT VALID`,
		`ALTER TABLE new_order ADD FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES "order" (o_w_id, o_d_id, o_id) NOT VALID`,
		"ALTER TABLE stock ADD FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id) NOT VALID",
		"ALTER TABLE stock ADD FOREIGN KEY (s_i_id) REFERENCES item (i_id) NOT VALID",
		`ALTER TABLE order_line ADD FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES "order" (o_w_id, o_d_id, o_id) NOT VALID`,
		"ALTER TABLE order_line ADD FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id) NOT VALID",
	}
	for _, version := range []string{Version21, Version22} {
		t.Run(version, func(t *testing.T) {
			ddl := workloadDDL(t, version)
			golden(t, "workload_ddl_"+version, ddl)
			if !slices.Equal(ForeignKeys(Cockroach, version), wantFKs) {
				t.Errorf("foreign keys:\n%s\nwant:\n%s", strings.Join(ForeignKeys(Cockroach, version), "\n"), strings.Join(wantFKs, "\n"))
			}
			for name, w := range want {
				body, err := TableSchema(Cockroach, version, name)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(body, ",\n\t")
				wantLines := append([]string{w.pk}, w.indexes...)
				if version == Version21 {
					wantLines = append(wantLines, w.fkIdx...)
				}
				// After the columns come exactly the key and the indexes.
				got := lines[len(lines)-len(wantLines):]
				got[0] = strings.TrimPrefix(got[0], "\t")
				if !slices.Equal(got, wantLines) {
					t.Errorf("%s %s: keys and indexes\n%q\nwant\n%q", version, name, got, wantLines)
				}
				if strings.Count(body, "index ") != len(wantLines)-1 {
					t.Errorf("%s %s: other indexes than %q:\n%s", version, name, wantLines[1:], body)
				}
			}
		})
	}
	// history's rowid comes first, as in workload: IMPORT's CSV columns
	// follow the table's order.
	body, _ := TableSchema(Cockroach, "", "history")
	if !strings.HasPrefix(body, "\trowid uuid not null default gen_random_uuid(),\n\th_c_id integer not null,") {
		t.Errorf("history does not start with workload's rowid:\n%s", body)
	}
	if _, err := TableSchema(Cockroach, "", "orders"); err == nil {
		t.Error("unknown table accepted")
	}
	if _, err := TableSchema(Cockroach, "3.0.0", "item"); err == nil {
		t.Error("unknown version accepted")
	}
	if a, _ := TableSchema(Cockroach, "", "order"); a == "" {
		t.Error("order without quotes not found")
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

// TestPgOrderIsAPermutation: a table's PostgreSQL column order names
// every column of workload's exactly once, so no column is lost or
// doubled in the PostgreSQL DDL.
func TestPgOrderIsAPermutation(t *testing.T) {
	for _, tb := range schemaTables() {
		if tb.pgOrder == nil {
			continue
		}
		var names []string
		for _, c := range tb.columns {
			name, _, _ := strings.Cut(c, " ")
			names = append(names, name)
		}
		got := slices.Clone(tb.pgOrder)
		slices.Sort(got)
		slices.Sort(names)
		if !slices.Equal(got, names) {
			t.Errorf("%s: pgOrder %v is not a permutation of its columns %v", tb.Name, tb.pgOrder, names)
		}
		if defs := tb.columnDefs(Postgres); len(defs) != len(tb.columns) {
			t.Errorf("%s: %d PostgreSQL column definitions, want %d", tb.Name, len(defs), len(tb.columns))
		}
	}
}
