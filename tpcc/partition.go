package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/crdb"
)

// Partitions splits the W warehouses into Count contiguous ranges exactly
// as CockroachDB's workload does (its makePartitioner): on 0-based
// warehouse ids, bounds[i] = i*W/P and partition i holds
// bounds[i] .. bounds[i+1]-1. The Active warehouses (those with terminals
// in a run, --active-warehouses) are spread the same way: partition i's
// active ones are its first ((i+1)*A)/P - (i*A)/P.
//
// Bounds and ActiveBounds are half-open; Range and ActiveRange the same
// split as inclusive ranges, for the loader's --from/--to.
type Partitions struct {
	Warehouses, Active, Count int

	bounds []int // len Count+1, 0-based exclusive upper bounds
	sizes  []int // active warehouses per partition
}

// NewPartitions validates and builds the split. count >= 1,
// 1 <= active <= warehouses, count <= warehouses.
//
// fidelity:v20.1/S45
func NewPartitions(warehouses, active, count int) (Partitions, error) {
	switch {
	case warehouses < 1:
		return Partitions{}, fmt.Errorf("partitions: warehouses must be >= 1, got %d", warehouses)
	case count < 1:
		return Partitions{}, fmt.Errorf("partitions: count must be >= 1, got %d", count)
	case count > warehouses:
		return Partitions{}, fmt.Errorf("partitions: %d partitions for %d warehouses: need at least one warehouse per partition", count, warehouses)
	case active < 1 || active > warehouses:
		return Partitions{}, fmt.Errorf("partitions: active warehouses %d not in [1, %d]", active, warehouses)
	}
	p := Partitions{Warehouses: warehouses, Active: active, Count: count,
		bounds: make([]int, count+1), sizes: make([]int, count)}
	for i := 0; i <= count; i++ {
		p.bounds[i] = i * warehouses / count
	}
	for i := 0; i < count; i++ {
		p.sizes[i] = ((i+1)*active)/count - (i*active)/count
	}
	return p, nil
}

// Bounds is partition i's half-open range [lo, hi) of 0-based w_ids: the
// VALUES FROM (lo) TO (hi) of its PARTITION clause.
func (p Partitions) Bounds(i int) (lo, hi int) { return p.bounds[i], p.bounds[i+1] }

// ActiveBounds is the half-open range of partition i's active 0-based
// w_ids (empty, lo == hi, when it has none).
func (p Partitions) ActiveBounds(i int) (lo, hi int) { return p.bounds[i], p.bounds[i] + p.sizes[i] }

// Range is the inclusive w_id range of partition i.
func (p Partitions) Range(i int) (lo, hi int) { return p.bounds[i], p.bounds[i+1] - 1 }

// ActiveRange is the inclusive range of partition i's active warehouses.
// It is empty (hi < lo) when the partition has none.
func (p Partitions) ActiveRange(i int) (lo, hi int) {
	return p.bounds[i], p.bounds[i] + p.sizes[i] - 1
}

// Of returns the partition holding warehouse wID, or -1 if wID is outside
// 0..Warehouses-1.
func (p Partitions) Of(wID int) int {
	if wID < 0 || wID >= p.Warehouses {
		return -1
	}
	return p.of0(wID)
}

// of0 returns the partition of the 0-based warehouse w (0 <= w < W).
func (p Partitions) of0(w int) int {
	return sort.Search(p.Count, func(i int) bool { return p.bounds[i+1] > w })
}

// PartitionOptions are workload's partitioning flags.
type PartitionOptions struct {
	// Version is the CockroachDB release whose workload to follow (the
	// zero value behaves as v20.1's).
	Version crdb.Version
	// Build, when given, is the release with its patch level, whose
	// Release decides the partitioned objects (v20.1.0-.8 and v20.1.9+
	// differ); otherwise Version's with the patch unknown.
	Build    crdb.Build
	Parts    Partitions
	Strategy crdb.PartitionStrategy // --partition-strategy
	// Zones (--zones) replaces rack=<i> by zone=<Zones[i]> in every
	// constraint; it has one entry per partition or none.
	Zones []string
	// ReplicateStaticColumns (--replicate-static-columns, v20.2+) adds
	// per-partition covering replicas of warehouse and district.
	ReplicateStaticColumns bool
	// FKIndexes: the schema has the foreign-key indexes (v20.1 with
	// --fks, the default), which workload v20.1.0-.8 partitions too
	// (Release.PartitionFKIndexes).
	FKIndexes bool
}

func (o PartitionOptions) release() crdb.Release {
	switch {
	case o.Build.Given():
		return o.Build.Release()
	case o.Version == (crdb.Version{}):
		return crdb.BuildOf(crdb.Version{Major: 20, Minor: 1}).Release() // v20.1's newest patch
	}
	return crdb.BuildOf(o.Version).Release()
}

// partitionedObject is a table or index workload partitions by warehouse;
// idx 0 is the primary index and 1, 2 the secondary ones, giving the
// partition names p<idx>_<i> (partition names are unique per table, so
// every zone config addresses them OF TABLE).
type partitionedObject struct {
	table, index, col string
	idx               int
}

// partitionedObjects lists them in workload's partitionTables order:
// warehouse, district, new_order, order, order_line, stock, customer,
// history, each table before its indexes, as the release does:
//
//   - "order"@order_idx only where Release.PartitionOrderIdx: v20.1.0-.8
//     looked the index up under the quoted table name and skipped it;
//   - the foreign-key indexes (when the schema has them) only where
//     Release.PartitionFKIndexes (v20.1.0-.8), as p1_*/p2_*:
//     order_line_stock_fk_idx by ol_supply_w_id, history_customer_fk_idx
//     by h_c_w_id and history_district_fk_idx by h_w_id. stock_item_fk_idx
//     is on s_i_id, not a warehouse, and stays unpartitioned.
//
// fidelity:v20.1/S50 fidelity:v20.1/S51 fidelity:v20.1/S52 fidelity:v20.1/S53 fidelity:v20.1/S54 fidelity:v20.1/S55
func partitionedObjects(rel crdb.Release, schemaFKIndexes bool) []partitionedObject {
	fkIndexes := schemaFKIndexes && rel.PartitionFKIndexes
	objs := []partitionedObject{
		{"warehouse", "", "w_id", 0},
		{"district", "", "d_w_id", 0},
		{"new_order", "", "no_w_id", 0},
		{`"order"`, "", "o_w_id", 0},
	}
	if rel.PartitionOrderIdx {
		objs = append(objs, partitionedObject{`"order"`, "order_idx", "o_w_id", 1})
	}
	objs = append(objs, partitionedObject{"order_line", "", "ol_w_id", 0})
	if fkIndexes {
		objs = append(objs, partitionedObject{"order_line", "order_line_stock_fk_idx", "ol_supply_w_id", 1})
	}
	objs = append(objs,
		partitionedObject{"stock", "", "s_w_id", 0},
		partitionedObject{"customer", "", "c_w_id", 0},
		partitionedObject{"customer", "customer_idx", "c_w_id", 1},
		partitionedObject{"history", "", "h_w_id", 0},
	)
	if fkIndexes {
		objs = append(objs,
			partitionedObject{"history", "history_customer_fk_idx", "h_c_w_id", 1},
			partitionedObject{"history", "history_district_fk_idx", "h_w_id", 2})
	}
	return objs
}

// staticReplica is a table whose never-updated columns workload copies
// into one covering index per partition, pinned to that partition's rack
// (replicateColumns), so reads of them stay local.
type staticReplica struct {
	table  string
	pk     []string
	stored []string
}

// ItemReplicaIndex names the covering index of item pinned to partition
// i (Release.ItemReplicaPrefix): replicated_idx_<i> from workload's
// replicateItem (PR #36855, extended to racks by PR #42028) through
// v20.2; item_idx_<i> from replicateColumns, which PR #56191 (opened on
// master 2020-11-02, after release-20.2 was cut) brought in the v21.1
// cycle.
//
// fidelity:v20.1/S56
func ItemReplicaIndex(v crdb.Version, i int) string {
	return crdb.BuildOf(v).Release().ItemReplicaPrefix + strconv.Itoa(i)
}

// constraint is the locality constraint of partition i: +rack=<i> (the
// racks roachprod --racks and benchrig assign) or +zone=<zones[i]>.
//
// fidelity:v20.1/S49
func (o PartitionOptions) constraint(i int) string {
	if len(o.Zones) > 0 {
		return "+zone=" + o.Zones[i]
	}
	return fmt.Sprintf("+rack=%d", i)
}

func (o PartitionOptions) validate() error {
	if o.Parts.Count < 1 {
		return errors.New("partitions: no partitioning given")
	}
	if o.ReplicateStaticColumns && !crdb.BuildOf(o.Version).Release().ReplicateStaticColumns {
		return fmt.Errorf("partitions: --replicate-static-columns needs CockroachDB v20.2+ (asked for %s)", o.Version)
	}
	if len(o.Zones) > 0 && len(o.Zones) != o.Parts.Count {
		return fmt.Errorf("partitions: --zones should have the same length as --partitions (%d zones, %d partitions)", len(o.Zones), o.Parts.Count)
	}
	for _, z := range o.Zones {
		// A zone lands inside a quoted SQL string and a constraint list:
		// accept locality values only.
		if z == "" || strings.ContainsAny(z, "'\"[]{},:\\ \t\n") {
			return fmt.Errorf("partitions: zone %q: want a locality value (letters, digits, - _ .)", z)
		}
	}
	return nil
}

// WorkloadPartitionStatements returns the statements workload's
// partitionTables issues, in its order: for each object its PARTITION BY
// RANGE on 0-based warehouse bounds followed by one zone config per
// partition (strategy replication: all replicas in the rack; leases: one
// replica and the lease), then with ReplicateStaticColumns the district
// and warehouse replicas, then the item replicas, always: CREATE UNIQUE
// INDEX item_idx_<i> ... STORING (...) and a zone config pinning one
// replica and the lease to rack i (named replicated_idx_<i> up to v20.1,
// see ItemReplicaIndex).
//
// fidelity:v20.1/S46 fidelity:v20.1/S47 fidelity:v20.1/S48 fidelity:v20.1/S57
func WorkloadPartitionStatements(o PartitionOptions) ([]string, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	rel := o.release()
	var out []string
	for _, obj := range partitionedObjects(rel, o.FKIndexes) {
		var b strings.Builder
		if obj.index == "" {
			fmt.Fprintf(&b, "ALTER TABLE %s PARTITION BY RANGE (%s) (\n", obj.table, obj.col)
		} else {
			fmt.Fprintf(&b, "ALTER INDEX %s@%s PARTITION BY RANGE (%s) (\n", obj.table, obj.index, obj.col)
		}
		for i := 0; i < o.Parts.Count; i++ {
			lo, hi := o.Parts.Bounds(i)
			fmt.Fprintf(&b, "  PARTITION p%d_%d VALUES FROM (%d) to (%d)", obj.idx, i, lo, hi)
			if i+1 < o.Parts.Count {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(")")
		out = append(out, b.String())
		for i := 0; i < o.Parts.Count; i++ {
			c := o.constraint(i)
			var using string
			switch o.Strategy {
			case crdb.Leases:
				using = fmt.Sprintf(`num_replicas = COPY FROM PARENT, constraints = '{"%s":1}', lease_preferences = '[[%s]]'`, c, c)
			default:
				using = fmt.Sprintf(`constraints = '[%s]'`, c)
			}
			out = append(out, fmt.Sprintf("ALTER PARTITION p%d_%d OF TABLE %s CONFIGURE ZONE USING %s", obj.idx, i, obj.table, using))
		}
	}
	var replicas []staticReplica
	if o.ReplicateStaticColumns {
		replicas = append(replicas,
			staticReplica{"district", []string{"d_w_id", "d_id"}, []string{"d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip"}},
			staticReplica{"warehouse", []string{"w_id"}, []string{"w_tax"}})
	}
	replicas = append(replicas, staticReplica{"item", []string{"i_id"}, []string{"i_im_id", "i_name", "i_price", "i_data"}})
	for _, r := range replicas {
		for i := 0; i < o.Parts.Count; i++ {
			c := o.constraint(i)
			if r.table == "item" && rel.ItemReplicaPrefix == "replicated_idx_" && !o.ReplicateStaticColumns {
				// replicateItem's statements, spacing included
				// (--replicate-static-columns is replicateColumns', which
				// names every replica <table>_idx_<i>).
				name := rel.ItemReplicaPrefix + strconv.Itoa(i)
				out = append(out,
					fmt.Sprintf("CREATE UNIQUE INDEX %s ON item (%s) STORING (%s)", name, strings.Join(r.pk, ", "), strings.Join(r.stored, ", ")),
					fmt.Sprintf(`ALTER INDEX item@%s CONFIGURE ZONE USING num_replicas = COPY FROM PARENT, constraints = '{"%s":1}', lease_preferences = '[[%s]]'`, name, c, c))
				continue
			}
			name := fmt.Sprintf("%s_idx_%d", r.table, i)
			out = append(out,
				fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (%s) STORING (%s)", name, r.table, strings.Join(r.pk, ","), strings.Join(r.stored, ",")),
				fmt.Sprintf(`ALTER INDEX %s@%s CONFIGURE ZONE USING num_replicas = COPY FROM PARENT, constraints='{"%s": 1}', lease_preferences='[[%s]]'`, r.table, name, c, c))
		}
	}
	return out, nil
}

// PartitionStatements is WorkloadPartitionStatements for a schema without
// foreign-key indexes and without static-column replicas.
func PartitionStatements(p Partitions, strategy crdb.PartitionStrategy, zones []string) ([]string, error) {
	return WorkloadPartitionStatements(PartitionOptions{Parts: p, Strategy: strategy, Zones: zones})
}

// PartitionCountQuery is workload's test for an already partitioned
// database: the number of p0_<i> partitions of warehouse (0: not
// partitioned). benchrig adds the database filter, so that another TPC-C
// database on the cluster does not count.
//
// fidelity:v20.1/S58
const PartitionCountQuery = `SELECT count(*) FROM crdb_internal.tables t JOIN crdb_internal.partitions p USING (table_id) WHERE t.name = 'warehouse' AND t.database_name = current_database() AND p.name ~ 'p0_\d+'`

// ScatterStatements are --scatter's: ALTER TABLE ... SCATTER on the nine
// tables, in workload's (alphabetical) order.
func ScatterStatements() []string {
	var out []string
	for _, t := range []string{"customer", "district", "history", "item", "new_order", `"order"`, "order_line", "stock", "warehouse"} {
		out = append(out, "ALTER TABLE "+t+" SCATTER")
	}
	return out
}

// PartitionCockroach partitions a CockroachDB TPC-C database by warehouse
// range and pins the partitions (WorkloadPartitionStatements), then
// records the count in benchrig_meta if the database has it. It is
// idempotent like workload's partitionAndScatter: tables already
// partitioned Count ways are left alone, another count is workload's
// error. `tpcc import`, `tpcc init --partitions` and `tpcc run
// --partitions` call it (the recipes partition with a short run after the
// import).
func PartitionCockroach(ctx context.Context, db DB, p Partitions, strategy crdb.PartitionStrategy, zones []string) error {
	return PartitionWorkload(ctx, db, PartitionOptions{Parts: p, Strategy: strategy, Zones: zones})
}

// PartitionWorkload is PartitionCockroach with all of workload's options.
func PartitionWorkload(ctx context.Context, db DB, o PartitionOptions) error {
	stmts, err := WorkloadPartitionStatements(o)
	if err != nil {
		return err
	}
	var have int
	if err := db.QueryRow(ctx, PartitionCountQuery).Scan(&have); err != nil {
		return fmt.Errorf("partition: could not determine if tables are partitioned: %w", err)
	}
	switch have {
	case o.Parts.Count:
		return nil
	case 0:
	default:
		return fmt.Errorf("partition: tables are not partitioned %d way(s) (they are %d ways). Pass the same --partitions to the import and the run", o.Parts.Count, have)
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("partition: %s: %w", FirstLine(s), err)
		}
	}
	if err := recordPartitions(ctx, db, o.Parts.Count); err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	return nil
}
