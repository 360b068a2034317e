package tpcc

// Schema (clause 1.3), laid out exactly as CockroachDB's workload lays it
// out (pkg/workload/tpcc/ddls.go), on both
// dialects, so that benchrig and workload can run on each other's data:
// the same table and column names in the same column order, the same
// primary keys, and the same secondary indexes under the same names:
//
//	warehouse  PK (w_id)
//	district   PK (d_w_id, d_id)
//	customer   PK (c_w_id, c_d_id, c_id); index customer_idx (c_w_id, c_d_id, c_last, c_first)
//	history    rowid uuid DEFAULT gen_random_uuid() (the spec gives history no key), PK (h_w_id, rowid)
//	"order"    PK (o_w_id, o_d_id, o_id DESC);
//	           unique index order_idx (o_w_id, o_d_id, o_c_id, o_id DESC) storing (o_entry_d, o_carrier_id)
//	           (storing: CockroachDB only)
//	new_order  PK (no_w_id, no_d_id, no_o_id)
//	item       PK (i_id)
//	stock      PK (s_w_id, s_i_id)
//	order_line PK (ol_w_id, ol_d_id, ol_o_id DESC, ol_number)
//
// Warehouse ids are 0..W-1, every other id starts at 1 (workload's
// generate.go). The ten foreign keys (ForeignKeys) are added NOT VALID
// after the load, as workload does with --fks (its default). Generator
// version 2.1.0 (CockroachDB v20.1 and older, which require an index on
// the referencing columns) also has the four FK indexes workload created
// then: history_customer_fk_idx, history_district_fk_idx,
// stock_item_fk_idx, order_line_stock_fk_idx.
//
// On PostgreSQL: primary keys cannot be DESC (a B-tree is read backwards
// as cheaply), the secondary indexes are CREATE INDEX statements of the
// same names without workload's STORING columns (index.pg says why), and
// stock's updated counters come
// before its s_dist columns (stockPgOrder: the column order is physical
// there, and no statement of either driver depends on it). Every referenced column list of
// the ten foreign keys is its table's primary key, so PostgreSQL's
// requirement of a unique index on the referenced columns needs no index
// beyond workload's.
//
// Plus benchrig_meta (one row: seed, warehouses, partitions, C-Load) and
// benchrig_loaded (w_id; -1 marks the item table) for idempotent loads;
// both are optional for run and check.
//
// Types are workload's spelling of clause 1.3's: decimal (NUMERIC) for
// money and rates (never floats: conditions 10 and 12 compare sums
// exactly), timestamp for dates, integer for identifiers and counters.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

// Generator versions of CockroachDB's workload tpcc (its Meta.Version,
// the version= parameter of workload:// IMPORT sources).
const (
	// Version21 is CockroachDB v20.1 and older: the schema has the FK
	// indexes (with --fks).
	Version21 = "2.1.0"
	// Version22 is CockroachDB v20.2 and later (--deprecated-fk-indexes
	// defaults to false: no FK indexes).
	Version22 = "2.2.0"
)

func checkVersion(v string) (string, error) {
	switch v {
	case "":
		return Version22, nil
	case Version21, Version22:
		return v, nil
	}
	return "", fmt.Errorf("unknown tpcc generator version %q (want %s or %s)", v, Version21, Version22)
}

// index is a secondary index as workload declares it.
type index struct {
	name    string
	unique  bool
	cols    string // may contain DESC
	storing string
}

// Table is one of the nine TPC-C tables.
type Table struct {
	Name string // SQL name, quoted where needed ("order")
	WCol string // warehouse column for partitioning and per-warehouse deletes; "" for item
	// columns: workload's column definitions in its order.
	columns []string
	// pgOrder, when set, is the order of the columns (their names) in
	// the PostgreSQL table; the load's COPY names its columns, so the
	// data follows (columnNames keeps workload's order).
	pgOrder []string
	// generated columns take their DEFAULT (history.rowid): not loaded.
	generated string
	pk        string // primary key columns (may contain DESC)
	// updated: the transactions update its rows in place (Payment,
	// New-Order's stock and district, Delivery), so a fillfactor below 100
	// lets an update stay on its page (a HOT update, no new index entry).
	updated   bool
	indexes   []index
	fkIndexes []index // generator 2.1.0 with --fks, CockroachDB only
}

// schemaTables returns the nine tables in load order: item, then a
// warehouse's tables in the order warehouseJobs generates them.
//
// fidelity:v20.1/S34 fidelity:v20.1/S35 fidelity:v20.1/S36 fidelity:v20.1/S37 fidelity:v20.1/S38 fidelity:v20.1/S39 fidelity:v20.1/S40 fidelity:v20.1/S41 fidelity:v20.1/S42 fidelity:v20.1/S43 fidelity:v20.1/S44
func schemaTables() []Table {
	return []Table{
		{Name: "item", pk: "i_id", columns: []string{
			"i_id integer not null",
			"i_im_id integer",
			"i_name varchar(24)",
			"i_price decimal(5,2)",
			"i_data varchar(50)"}},
		{Name: "warehouse", updated: true, WCol: "w_id", pk: "w_id", columns: []string{
			"w_id integer not null",
			"w_name varchar(10)",
			"w_street_1 varchar(20)",
			"w_street_2 varchar(20)",
			"w_city varchar(20)",
			"w_state char(2)",
			"w_zip char(9)",
			"w_tax decimal(4,4)",
			"w_ytd decimal(12,2)"}},
		{Name: "stock", updated: true, WCol: "s_w_id", pk: "s_w_id, s_i_id", columns: []string{
			"s_i_id integer not null",
			"s_w_id integer not null",
			"s_quantity integer",
			"s_dist_01 char(24)",
			"s_dist_02 char(24)",
			"s_dist_03 char(24)",
			"s_dist_04 char(24)",
			"s_dist_05 char(24)",
			"s_dist_06 char(24)",
			"s_dist_07 char(24)",
			"s_dist_08 char(24)",
			"s_dist_09 char(24)",
			"s_dist_10 char(24)",
			"s_ytd integer",
			"s_order_cnt integer",
			"s_remote_cnt integer",
			"s_data varchar(50)"},
			pgOrder:   stockPgOrder,
			fkIndexes: []index{{name: "stock_item_fk_idx", cols: "s_i_id"}}},
		{Name: "district", updated: true, WCol: "d_w_id", pk: "d_w_id, d_id", columns: []string{
			"d_id integer not null",
			"d_w_id integer not null",
			"d_name varchar(10)",
			"d_street_1 varchar(20)",
			"d_street_2 varchar(20)",
			"d_city varchar(20)",
			"d_state char(2)",
			"d_zip char(9)",
			"d_tax decimal(4,4)",
			"d_ytd decimal(12,2)",
			"d_next_o_id integer"}},
		{Name: "customer", updated: true, WCol: "c_w_id", pk: "c_w_id, c_d_id, c_id", columns: []string{
			"c_id integer not null",
			"c_d_id integer not null",
			"c_w_id integer not null",
			"c_first varchar(16)",
			"c_middle char(2)",
			"c_last varchar(16)",
			"c_street_1 varchar(20)",
			"c_street_2 varchar(20)",
			"c_city varchar(20)",
			"c_state char(2)",
			"c_zip char(9)",
			"c_phone char(16)",
			"c_since timestamp",
			"c_credit char(2)",
			"c_credit_lim decimal(12,2)",
			"c_discount decimal(4,4)",
			"c_balance decimal(12,2)",
			"c_ytd_payment decimal(12,2)",
			"c_payment_cnt integer",
			"c_delivery_cnt integer",
			"c_data varchar(500)"},
			indexes: []index{{name: "customer_idx", cols: "c_w_id, c_d_id, c_last, c_first"}}},
		{Name: "history", WCol: "h_w_id", pk: "h_w_id, rowid", generated: "rowid", columns: []string{
			"rowid uuid not null default gen_random_uuid()",
			"h_c_id integer not null",
			"h_c_d_id integer not null",
			"h_c_w_id integer not null",
			"h_d_id integer not null",
			"h_w_id integer not null",
			"h_date timestamp",
			"h_amount decimal(6,2)",
			"h_data varchar(24)"},
			fkIndexes: []index{
				{name: "history_customer_fk_idx", cols: "h_c_w_id, h_c_d_id, h_c_id"},
				{name: "history_district_fk_idx", cols: "h_w_id, h_d_id"}}},
		{Name: `"order"`, updated: true, WCol: "o_w_id", pk: "o_w_id, o_d_id, o_id DESC", columns: []string{
			"o_id integer not null",
			"o_d_id integer not null",
			"o_w_id integer not null",
			"o_c_id integer",
			"o_entry_d timestamp",
			"o_carrier_id integer",
			"o_ol_cnt integer",
			"o_all_local integer"},
			indexes: []index{{name: "order_idx", unique: true, cols: "o_w_id, o_d_id, o_c_id, o_id DESC", storing: "o_entry_d, o_carrier_id"}}},
		{Name: "order_line", updated: true, WCol: "ol_w_id", pk: "ol_w_id, ol_d_id, ol_o_id DESC, ol_number", columns: []string{
			"ol_o_id integer not null",
			"ol_d_id integer not null",
			"ol_w_id integer not null",
			"ol_number integer not null",
			"ol_i_id integer not null",
			"ol_supply_w_id integer",
			"ol_delivery_d timestamp",
			"ol_quantity integer",
			"ol_amount decimal(6,2)",
			"ol_dist_info char(24)"},
			fkIndexes: []index{{name: "order_line_stock_fk_idx", cols: "ol_supply_w_id, ol_i_id"}}},
		{Name: "new_order", WCol: "no_w_id", pk: "no_w_id, no_d_id, no_o_id", columns: []string{
			"no_o_id integer not null",
			"no_d_id integer not null",
			"no_w_id integer not null"}},
	}
}

// stockPgOrder puts the four columns New-Order updates (s_quantity,
// s_ytd, s_order_cnt, s_remote_cnt) next to each other, ahead of the ten
// 24-byte s_dist columns. PostgreSQL logs an update that stays on its
// page as the bytes between the unchanged prefix and suffix of the row
// (heapam.c log_heap_update); in workload's order s_quantity comes
// before the s_dist columns and the counters after them, so each of a
// New-Order's ten stock updates logged about 260 bytes instead of 20:
// measured (W=4, 8 workers, functions profile, fillfactor 85) 18.4 kB of
// WAL per New-Order against 8.6 kB in this order, HammerDB's 8.1 kB (its
// stock starts with the same four columns), and the extra WAL brought
// checkpoints, and their full-page images, sooner
// (TestStockUpdateWAL measures one update).
var stockPgOrder = []string{
	"s_i_id", "s_w_id", "s_quantity", "s_ytd", "s_order_cnt", "s_remote_cnt",
	"s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05",
	"s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_data",
}

// columnDefs are the table's column definitions in d's order.
func (t Table) columnDefs(d Dialect) []string {
	if d != Postgres || t.pgOrder == nil {
		return append([]string(nil), t.columns...)
	}
	def := make(map[string]string, len(t.columns))
	for _, c := range t.columns {
		name, _, _ := strings.Cut(c, " ")
		def[name] = c
	}
	out := make([]string, 0, len(t.pgOrder))
	for _, name := range t.pgOrder {
		out = append(out, def[name])
	}
	return out
}

// TableNames lists the nine tables as they appear in SQL.
func TableNames() []string {
	ts := schemaTables()
	n := make([]string, len(ts))
	for i, t := range ts {
		n[i] = t.Name
	}
	return n
}

// TableByName is the table called name (the ORDER table is "order").
func TableByName(name string) (Table, bool) {
	for _, t := range schemaTables() {
		if t.Name == name || strings.Trim(t.Name, `"`) == name {
			return t, true
		}
	}
	return Table{}, false
}

// Body renders the table's CREATE TABLE body, without the enclosing
// parentheses, one element per line indented by a tab.
func (t Table) Body(d Dialect, version string, fks bool) string {
	lines := t.columnDefs(d)
	if d == Cockroach {
		lines = append(lines, "primary key ("+t.pk+")")
		for _, ix := range t.indexes {
			lines = append(lines, ix.crdb())
		}
		if version == Version21 && fks {
			for _, ix := range t.fkIndexes {
				lines = append(lines, ix.crdb())
			}
		}
	} else {
		// A PostgreSQL PRIMARY KEY constraint takes no sort order.
		lines = append(lines, "primary key ("+strings.ReplaceAll(t.pk, " DESC", "")+")")
	}
	return "\t" + strings.Join(lines, ",\n\t")
}

func (ix index) crdb() string {
	s := "index " + ix.name + " (" + ix.cols + ")"
	if ix.unique {
		s = "unique " + s
	}
	if ix.storing != "" {
		s += " storing (" + ix.storing + ")"
	}
	return s
}

// pg is the CREATE INDEX statement of ix on PostgreSQL. It leaves out
// ix.storing: workload's one STORING list, order_idx's (o_entry_d,
// o_carrier_id), names the column Delivery sets (clause 2.7.4.2), and on
// PostgreSQL an update that changes any indexed column, INCLUDE columns
// too, cannot stay on its page as a HOT update: every order delivered
// became a new row version with a new entry in both of order's indexes.
// Measured (W=4, 8 workers, functions profile, fillfactor 85, 60 s):
// none of 109,510 order updates was HOT with the INCLUDE; without it, 2
// B-tree insertions fewer per order delivered and 1-5 % less server CPU
// per New-Order in three interleaved rounds. What the INCLUDE would buy,
// an index-only Order-Status, needs pages the visibility map marks
// all-visible, which the orders a run writes and delivers are not.
// TestDeliveryOrderUpdateIsHOT holds it.
func (ix index) pg(table string) string {
	if ix.unique {
		return "CREATE UNIQUE INDEX IF NOT EXISTS " + ix.name + " ON " + table + " (" + ix.cols + ")"
	}
	return "CREATE INDEX IF NOT EXISTS " + ix.name + " ON " + table + " (" + ix.cols + ")"
}

// TableSchema returns the CREATE TABLE body of table (its column, primary
// key and index definitions, without the enclosing parentheses) for a
// dialect and workload generator version ("" is the latest, 2.2.0), with
// workload's default --fks (2.1.0's FK indexes). For CockroachDB it is
// what `IMPORT TABLE "<table>" (<body>) CSV DATA (...)` and
// `CREATE TABLE "<table>" (<body>)` take. On PostgreSQL the secondary
// indexes are separate statements (SchemaStatements). table may be given
// with or without quotes ("order" or order).
func TableSchema(d Dialect, version, table string) (string, error) {
	v, err := checkVersion(version)
	if err != nil {
		return "", err
	}
	t, ok := TableByName(table)
	if !ok {
		return "", fmt.Errorf("unknown tpcc table %q", table)
	}
	return t.Body(d, v, true), nil
}

// ForeignKeys returns the ten foreign keys of workload's schema as the
// ALTER TABLE ... ADD FOREIGN KEY ... NOT VALID statements workload
// issues after a load (PostLoad with --fks): NOT VALID because the data
// was just generated consistent and validating would scan it all again.
// They are the same for both dialects and both generator versions (2.1.0
// differs only in having the FK indexes, see TableSchema).
//
// fidelity:v20.1/S32
func ForeignKeys(d Dialect, version string) []string {
	_ = d
	_ = version
	out := make([]string, len(foreignKeys))
	for i, fk := range foreignKeys {
		out[i] = fk.statement(true)
	}
	return out
}

// foreignKey is one of the ten; no two share (table, ref), which is how
// AddForeignKeys recognises an existing one whatever its name.
type foreignKey struct {
	table, cols, ref, refCols string
}

var foreignKeys = []foreignKey{
	{"district", "d_w_id", "warehouse", "w_id"},
	{"customer", "c_w_id, c_d_id", "district", "d_w_id, d_id"},
	{"history", "h_c_w_id, h_c_d_id, h_c_id", "customer", "c_w_id, c_d_id, c_id"},
	{"history", "h_w_id, h_d_id", "district", "d_w_id, d_id"},
	{`"order"`, "o_w_id, o_d_id, o_c_id", "customer", "c_w_id, c_d_id, c_id"},
	{"new_order", "no_w_id, no_d_id, no_o_id", `"order"`, "o_w_id, o_d_id, o_id"},
	{"stock", "s_w_id", "warehouse", "w_id"},
	{"stock", "s_i_id", "item", "i_id"},
	{"order_line", "ol_w_id, ol_d_id, ol_o_id", `"order"`, "o_w_id, o_d_id, o_id"},
	{"order_line", "ol_supply_w_id, ol_i_id", "stock", "s_w_id, s_i_id"},
}

func (fk foreignKey) statement(notValid bool) string {
	s := "ALTER TABLE " + fk.table + " ADD FOREIGN KEY (" + fk.cols + ") REFERENCES " + fk.ref + " (" + fk.refCols + ")"
	if notValid {
		s += " NOT VALID"
	}
	return s
}

// partName is the PostgreSQL partition table name: order -> order_p0.
func partName(table string, i int) string {
	return fmt.Sprintf("%s_p%d", strings.Trim(table, `"`), i)
}

// SchemaOptions shape the DDL.
type SchemaOptions struct {
	Dialect Dialect
	// Version is workload's generator version (Version21, Version22; ""
	// is Version22). It matters on CockroachDB only.
	Version string
	// FKs: the foreign keys will be added after the load (workload's
	// --fks); with Version21 this adds the FK indexes.
	FKs bool
	// Parts, when Count > 1, partitions every table with a warehouse
	// column by w_id range (PostgreSQL declarative partitioning; for
	// CockroachDB see PartitionStatements).
	Parts Partitions
	// FillFactor (PostgreSQL; 0: the server's 100) is the fillfactor of the
	// tables whose rows are updated in place, as pgbench -i -F sets its
	// own: the free space left on each page at load keeps the updates of
	// its rows on the page.
	FillFactor int
}

// SchemaStatements returns the DDL creating the nine tables, their
// secondary indexes and benchrig's bookkeeping tables, in order. Every
// statement is IF NOT EXISTS, so init can be re-run.
func SchemaStatements(o SchemaOptions) ([]string, error) {
	version, err := checkVersion(o.Version)
	if err != nil {
		return nil, err
	}
	if err := runspec.CheckFillFactor(o.FillFactor); err != nil {
		return nil, err
	}
	if o.FillFactor != 0 && o.Dialect != Postgres {
		return nil, fmt.Errorf("fillfactor %d: PostgreSQL only", o.FillFactor)
	}
	var out []string
	partitioned := o.Parts.Count > 1
	for _, t := range schemaTables() {
		// A partitioned table keeps no rows and takes no fillfactor; its
		// partitions do.
		with := ""
		if o.FillFactor != 0 && t.updated {
			with = fmt.Sprintf(" WITH (fillfactor = %d)", o.FillFactor)
		}
		stmt := "CREATE TABLE IF NOT EXISTS " + t.Name + " (\n" + t.Body(o.Dialect, version, o.FKs) + "\n)"
		if o.Dialect == Postgres && partitioned && t.WCol != "" {
			stmt += " PARTITION BY RANGE (" + t.WCol + ")"
		} else {
			stmt += with
		}
		out = append(out, stmt)
		if o.Dialect == Postgres && partitioned && t.WCol != "" {
			for i := 0; i < o.Parts.Count; i++ {
				lo, hi := o.Parts.Range(i)
				// Range bounds are [FROM, TO): hi+1. The first and last
				// partitions are open-ended so that a later, larger
				// --warehouses never hits "no partition of relation".
				from, to := fmt.Sprint(lo), fmt.Sprint(hi+1)
				if i == 0 {
					from = "MINVALUE"
				}
				if i == o.Parts.Count-1 {
					to = "MAXVALUE"
				}
				out = append(out, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)%s",
					partName(t.Name, i), t.Name, from, to, with))
			}
		}
		if o.Dialect == Postgres {
			for _, ix := range t.indexes {
				out = append(out, ix.pg(t.Name))
			}
		}
	}
	out = append(out,
		`CREATE TABLE IF NOT EXISTS `+metaTable+` (
	id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
	seed BIGINT NOT NULL,
	warehouses INTEGER NOT NULL,
	partitions INTEGER NOT NULL,
	c_last INTEGER NOT NULL,
	c_id INTEGER NOT NULL,
	ol_i_id INTEGER NOT NULL,
	created_at TIMESTAMP NOT NULL DEFAULT now()
)`,
		`CREATE TABLE IF NOT EXISTS `+loadedTable+` (
	w_id INTEGER NOT NULL PRIMARY KEY,
	loaded_at TIMESTAMP NOT NULL DEFAULT now()
)`)
	return out, nil
}

// loadedTable has one row per fully loaded warehouse; w_id -1 (itemsUnit)
// is the item table.
const loadedTable = "benchrig_loaded"

// FirstLine is s up to its first newline (a statement's head for an
// error message).
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func isUndefinedTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42P01"
}
