package tpcc

// Schema (clause 1.3; names used by every transaction's SQL):
//
//	warehouse  (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd)
//	           PK (w_id)
//	district   (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id)
//	           PK (d_w_id, d_id)
//	customer   (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip,
//	            c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance, c_ytd_payment, c_payment_cnt,
//	            c_delivery_cnt, c_data)
//	           PK (c_w_id, c_d_id, c_id); index customer_idx (c_w_id, c_d_id, c_last, c_first)
//	history    (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
//	           no PK in the spec; CockroachDB gets rowid UUID, PK (h_w_id, rowid)
//	"order"    (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
//	           PK (o_w_id, o_d_id, o_id); unique index order_idx (o_w_id, o_d_id, o_c_id, o_id)
//	new_order  (no_o_id, no_d_id, no_w_id)
//	           PK (no_w_id, no_d_id, no_o_id)
//	order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity,
//	            ol_amount, ol_dist_info)
//	           PK (ol_w_id, ol_d_id, ol_o_id, ol_number)
//	item       (i_id, i_im_id, i_name, i_price, i_data)
//	           PK (i_id)
//	stock      (s_i_id, s_w_id, s_quantity, s_dist_01 .. s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data)
//	           PK (s_w_id, s_i_id)
//
// plus benchrig_meta (one row: seed, warehouses, partitions, C-Load) and
// benchrig_loaded (w_id; -1 marks the item table) for idempotent loads.
//
// Types follow clause 1.3: NUMERIC for money and rates (never floats:
// conditions 10 and 12 compare sums exactly), TIMESTAMP for dates, INTEGER
// for identifiers and counters.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Table is one of the nine TPC-C tables.
type Table struct {
	Name     string // SQL name, quoted where needed ("order")
	WCol     string // warehouse column for partitioning and per-warehouse deletes; "" for item
	columns  string // column definitions shared by both dialects
	pkPG     string
	pkCRDB   string
	indexPG  string // secondary index (CREATE INDEX ... ON table), or ""
	indexCR  string // the same index inside CockroachDB's CREATE TABLE
	crdbCols string // extra CockroachDB-only column definitions
}

// schemaTables returns the nine tables in load order: item, then a
// warehouse's tables in the order warehouseJobs generates them.
func schemaTables() []Table {
	return []Table{
		{Name: "item", columns: `
	i_id INTEGER NOT NULL,
	i_im_id INTEGER,
	i_name VARCHAR(24),
	i_price NUMERIC(5,2),
	i_data VARCHAR(50)`, pkPG: "PRIMARY KEY (i_id)", pkCRDB: "PRIMARY KEY (i_id)"},
		{Name: "warehouse", WCol: "w_id", columns: `
	w_id INTEGER NOT NULL,
	w_name VARCHAR(10),
	w_street_1 VARCHAR(20),
	w_street_2 VARCHAR(20),
	w_city VARCHAR(20),
	w_state CHAR(2),
	w_zip CHAR(9),
	w_tax NUMERIC(4,4),
	w_ytd NUMERIC(12,2)`, pkPG: "PRIMARY KEY (w_id)", pkCRDB: "PRIMARY KEY (w_id)"},
		{Name: "stock", WCol: "s_w_id", columns: `
	s_i_id INTEGER NOT NULL,
	s_w_id INTEGER NOT NULL,
	s_quantity INTEGER,
	s_dist_01 CHAR(24),
	s_dist_02 CHAR(24),
	s_dist_03 CHAR(24),
	s_dist_04 CHAR(24),
	s_dist_05 CHAR(24),
	s_dist_06 CHAR(24),
	s_dist_07 CHAR(24),
	s_dist_08 CHAR(24),
	s_dist_09 CHAR(24),
	s_dist_10 CHAR(24),
	s_ytd INTEGER,
	s_order_cnt INTEGER,
	s_remote_cnt INTEGER,
	s_data VARCHAR(50)`, pkPG: "PRIMARY KEY (s_w_id, s_i_id)", pkCRDB: "PRIMARY KEY (s_w_id, s_i_id)"},
		{Name: "district", WCol: "d_w_id", columns: `
	d_id INTEGER NOT NULL,
	d_w_id INTEGER NOT NULL,
	d_name VARCHAR(10),
	d_street_1 VARCHAR(20),
	d_street_2 VARCHAR(20),
	d_city VARCHAR(20),
	d_state CHAR(2),
	d_zip CHAR(9),
	d_tax NUMERIC(4,4),
	d_ytd NUMERIC(12,2),
	d_next_o_id INTEGER`, pkPG: "PRIMARY KEY (d_w_id, d_id)", pkCRDB: "PRIMARY KEY (d_w_id, d_id)"},
		{Name: "customer", WCol: "c_w_id", columns: `
	c_id INTEGER NOT NULL,
	c_d_id INTEGER NOT NULL,
	c_w_id INTEGER NOT NULL,
	c_first VARCHAR(16),
	c_middle CHAR(2),
	c_last VARCHAR(16),
	c_street_1 VARCHAR(20),
	c_street_2 VARCHAR(20),
	c_city VARCHAR(20),
	c_state CHAR(2),
	c_zip CHAR(9),
	c_phone CHAR(16),
	c_since TIMESTAMP,
	c_credit CHAR(2),
	c_credit_lim NUMERIC(12,2),
	c_discount NUMERIC(4,4),
	c_balance NUMERIC(12,2),
	c_ytd_payment NUMERIC(12,2),
	c_payment_cnt INTEGER,
	c_delivery_cnt INTEGER,
	c_data VARCHAR(500)`, pkPG: "PRIMARY KEY (c_w_id, c_d_id, c_id)", pkCRDB: "PRIMARY KEY (c_w_id, c_d_id, c_id)",
			indexPG: "CREATE INDEX customer_idx ON customer (c_w_id, c_d_id, c_last, c_first)",
			indexCR: "INDEX customer_idx (c_w_id, c_d_id, c_last, c_first)"},
		{Name: "history", WCol: "h_w_id", columns: `
	h_c_id INTEGER,
	h_c_d_id INTEGER,
	h_c_w_id INTEGER,
	h_d_id INTEGER,
	h_w_id INTEGER NOT NULL,
	h_date TIMESTAMP,
	h_amount NUMERIC(6,2),
	h_data VARCHAR(24)`, pkCRDB: "PRIMARY KEY (h_w_id, rowid)",
			crdbCols: "rowid UUID NOT NULL DEFAULT gen_random_uuid()"},
		{Name: `"order"`, WCol: "o_w_id", columns: `
	o_id INTEGER NOT NULL,
	o_d_id INTEGER NOT NULL,
	o_w_id INTEGER NOT NULL,
	o_c_id INTEGER,
	o_entry_d TIMESTAMP,
	o_carrier_id INTEGER,
	o_ol_cnt INTEGER,
	o_all_local INTEGER`, pkPG: "PRIMARY KEY (o_w_id, o_d_id, o_id)", pkCRDB: "PRIMARY KEY (o_w_id, o_d_id, o_id DESC)",
			indexPG: `CREATE UNIQUE INDEX order_idx ON "order" (o_w_id, o_d_id, o_c_id, o_id)`,
			indexCR: "UNIQUE INDEX order_idx (o_w_id, o_d_id, o_c_id, o_id DESC) STORING (o_entry_d, o_carrier_id)"},
		{Name: "order_line", WCol: "ol_w_id", columns: `
	ol_o_id INTEGER NOT NULL,
	ol_d_id INTEGER NOT NULL,
	ol_w_id INTEGER NOT NULL,
	ol_number INTEGER NOT NULL,
	ol_i_id INTEGER,
	ol_supply_w_id INTEGER,
	ol_delivery_d TIMESTAMP,
	ol_quantity INTEGER,
	ol_amount NUMERIC(6,2),
	ol_dist_info CHAR(24)`, pkPG: "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)",
			pkCRDB: "PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id DESC, ol_number)"},
		{Name: "new_order", WCol: "no_w_id", columns: `
	no_o_id INTEGER NOT NULL,
	no_d_id INTEGER NOT NULL,
	no_w_id INTEGER NOT NULL`, pkPG: "PRIMARY KEY (no_w_id, no_d_id, no_o_id)",
			pkCRDB: "PRIMARY KEY (no_w_id, no_d_id, no_o_id)"},
	}
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

// partName is the PostgreSQL partition table name: order -> order_p0.
func partName(table string, i int) string {
	return fmt.Sprintf("%s_p%d", strings.Trim(table, `"`), i)
}

// SchemaOptions shape the DDL.
type SchemaOptions struct {
	Dialect Dialect
	// Parts, when Count > 1, partitions every table with a warehouse
	// column by w_id range (PostgreSQL declarative partitioning; for
	// CockroachDB see PartitionStatements).
	Parts Partitions
}

// SchemaStatements returns the DDL creating the nine tables, their
// secondary indexes and benchrig's bookkeeping tables, in order. Every
// statement is IF NOT EXISTS, so init can be re-run.
func SchemaStatements(o SchemaOptions) []string {
	var out []string
	partitioned := o.Parts.Count > 1
	for _, t := range schemaTables() {
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (%s", t.Name, t.columns)
		switch o.Dialect {
		case Cockroach:
			if t.crdbCols != "" {
				b.WriteString(",\n\t" + t.crdbCols)
			}
			b.WriteString(",\n\t" + t.pkCRDB)
			if t.indexCR != "" {
				b.WriteString(",\n\t" + t.indexCR)
			}
			b.WriteString("\n)")
		default:
			if t.pkPG != "" {
				b.WriteString(",\n\t" + t.pkPG)
			}
			b.WriteString("\n)")
			if partitioned && t.WCol != "" {
				fmt.Fprintf(&b, " PARTITION BY RANGE (%s)", t.WCol)
			}
		}
		out = append(out, b.String())
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
				out = append(out, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES FROM (%s) TO (%s)",
					partName(t.Name, i), t.Name, from, to))
			}
		}
		if o.Dialect == Postgres && t.indexPG != "" {
			out = append(out, strings.Replace(t.indexPG, " INDEX ", " INDEX IF NOT EXISTS ", 1))
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
	return out
}

// loadedTable has one row per fully loaded warehouse; w_id -1 (itemsUnit)
// is the item table.
const loadedTable = "benchrig_loaded"

// Execer runs statements; *pgx.Conn, *pgxpool.Pool and pgx.Tx satisfy it.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// DB is what init needs: statements and one-row queries.
type DB interface {
	Execer
	Querier
}

// InitOptions configure Init.
type InitOptions struct {
	Warehouses int
	Seed       uint64
	Dialect    Dialect
	// Partitions > 1 partitions the tables by warehouse range.
	Partitions int
	// Strategy, Zones: CockroachDB only (see PartitionStatements).
	Strategy PartitionStrategy
	Zones    []string
	// Drop drops the nine tables and the bookkeeping tables first.
	Drop bool
}

// Init creates the schema and stores the load metadata (seed, C-Load).
// Re-running it with the same seed and warehouse count is a no-op; a
// different seed or count against existing metadata is an error, since
// rows already loaded were drawn from the stored values (pass Drop to
// start over).
func Init(ctx context.Context, db DB, o InitOptions) error {
	parts := o.Partitions
	if parts < 1 {
		parts = 1
	}
	p, err := NewPartitions(o.Warehouses, o.Warehouses, parts)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if o.Drop {
		for _, s := range DropStatements() {
			if _, err := db.Exec(ctx, s); err != nil {
				return fmt.Errorf("init: %s: %w", s, err)
			}
		}
	}
	if old, err := ReadMeta(ctx, db); err == nil {
		// CockroachDB partitions by ALTER, so a loaded database can be
		// partitioned later (the recipes do it after import); PostgreSQL's
		// declarative partitions exist only from CREATE TABLE.
		repartition := o.Dialect == Cockroach && old.Partitions <= 1 && parts > 1
		if old.Seed != o.Seed || old.Warehouses != o.Warehouses || (old.Partitions != parts && !repartition) {
			return fmt.Errorf("init: %w: database already initialised with seed %d, %d warehouses, %d partitions (asked: seed %d, %d warehouses, %d partitions); pass --drop to start over",
				ErrMismatch, old.Seed, old.Warehouses, old.Partitions, o.Seed, o.Warehouses, parts)
		}
	} else if !errors.Is(err, ErrNoMeta) {
		return fmt.Errorf("init: %w", err)
	}
	for _, s := range SchemaStatements(SchemaOptions{Dialect: o.Dialect, Parts: p}) {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("init: %s: %w", firstLine(s), err)
		}
	}
	if o.Dialect == Cockroach && parts > 1 {
		if err := PartitionCockroach(ctx, db, p, o.Strategy, o.Zones); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	m := MetaForSeed(o.Seed, o.Warehouses, parts)
	// ON CONFLICT DO NOTHING: concurrent inits with equal flags both succeed.
	if _, err := db.Exec(ctx, `INSERT INTO `+metaTable+` (id, seed, warehouses, partitions, c_last, c_id, ol_i_id)
VALUES (1, $1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		int64(m.Seed), m.Warehouses, m.Partitions, m.Load.CLast, m.Load.CID, m.Load.OLIID); err != nil {
		return fmt.Errorf("init: write %s: %w", metaTable, err)
	}
	return nil
}

// DropStatements drop everything Init creates.
func DropStatements() []string {
	var out []string
	ts := schemaTables()
	for i := len(ts) - 1; i >= 0; i-- {
		out = append(out, "DROP TABLE IF EXISTS "+ts[i].Name+" CASCADE")
	}
	return append(out, "DROP TABLE IF EXISTS "+loadedTable, "DROP TABLE IF EXISTS "+metaTable)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

func isUndefinedTable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42P01"
}
