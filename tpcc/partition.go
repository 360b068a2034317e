package tpcc

import (
	"context"
	"fmt"
	"sort"
)

// Partitions splits warehouses 0..W-1 (CockroachDB's workload numbers
// warehouses from 0, and benchrig's data layout is workload's) into Count
// contiguous ranges exactly as workload does: bounds[i] = i*W/P and
// partition i is w_id bounds[i] .. bounds[i+1]-1. The Active warehouses
// (those with terminals in a run, --active-warehouses) are spread the same
// way: partition i's active ones are its first ((i+1)*A)/P - (i*A)/P.
type Partitions struct {
	Warehouses, Active, Count int

	bounds []int // len Count+1, 0-based exclusive upper bounds
	sizes  []int // active warehouses per partition
}

// NewPartitions validates and builds the split. count >= 1,
// 1 <= active <= warehouses, count <= warehouses.
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
	// First i with bounds[i+1] > wID.
	return sort.Search(p.Count, func(i int) bool { return p.bounds[i+1] > wID })
}

// PartitionStrategy is how CockroachDB places a warehouse partition
// (--partition-strategy, as in CockroachDB's workload).
type PartitionStrategy int

const (
	// Replication pins all replicas of partition i to rack i (or zone i).
	Replication PartitionStrategy = iota
	// Leases pins one replica and the leaseholder of partition i to rack i
	// and lets the other replicas spread for survivability.
	Leases
)

// ParsePartitionStrategy parses "replication" or "leases".
func ParsePartitionStrategy(s string) (PartitionStrategy, error) {
	switch s {
	case "replication", "":
		return Replication, nil
	case "leases":
		return Leases, nil
	}
	return 0, fmt.Errorf("unknown partition strategy %q (want replication or leases)", s)
}

func (s PartitionStrategy) String() string {
	if s == Leases {
		return "leases"
	}
	return "replication"
}

// partitionedObject is a table or secondary index CockroachDB partitions
// by warehouse; idx 0 is the primary index, 1 a secondary one, giving the
// partition names p<idx>_<i> that CockroachDB's workload uses (so zone
// configs and its partition check match ours).
type partitionedObject struct {
	table, index, col string
	idx               int
}

func crdbPartitionedObjects() []partitionedObject {
	return []partitionedObject{
		{"warehouse", "", "w_id", 0},
		{"district", "", "d_w_id", 0},
		{"new_order", "", "no_w_id", 0},
		{`"order"`, "", "o_w_id", 0},
		{`"order"`, "order_idx", "o_w_id", 1},
		{"order_line", "", "ol_w_id", 0},
		{"stock", "", "s_w_id", 0},
		{"customer", "", "c_w_id", 0},
		{"customer", "customer_idx", "c_w_id", 1},
		{"history", "", "h_w_id", 0},
	}
}

// PartitionStatements returns CockroachDB's DDL for --partitions:
// PARTITION BY RANGE on every warehouse-keyed table and secondary index,
// then one zone config per partition placing it on rack i (locality
// rack=<i>, as roachprod --racks assigns) or, with zones, on zone
// zones[i]. The bounds are workload's: VALUES FROM (i*W/P) TO ((i+1)*W/P)
// on 0-based w_ids.
func PartitionStatements(p Partitions, strategy PartitionStrategy, zones []string) ([]string, error) {
	if len(zones) > 0 && len(zones) != p.Count {
		return nil, fmt.Errorf("partitions: %d zones given for %d partitions", len(zones), p.Count)
	}
	var out []string
	for _, o := range crdbPartitionedObjects() {
		var b []byte
		if o.index == "" {
			b = fmt.Appendf(b, "ALTER TABLE %s PARTITION BY RANGE (%s) (\n", o.table, o.col)
		} else {
			b = fmt.Appendf(b, "ALTER INDEX %s@%s PARTITION BY RANGE (%s) (\n", o.table, o.index, o.col)
		}
		for i := 0; i < p.Count; i++ {
			lo, hi := p.Range(i)
			sep := ","
			if i == p.Count-1 {
				sep = ""
			}
			b = fmt.Appendf(b, "\tPARTITION p%d_%d VALUES FROM (%d) TO (%d)%s\n", o.idx, i, lo, hi+1, sep)
		}
		out = append(out, string(append(b, ')')))
	}
	for _, o := range crdbPartitionedObjects() {
		for i := 0; i < p.Count; i++ {
			key := fmt.Sprintf("rack=%d", i)
			if len(zones) > 0 {
				key = "zone=" + zones[i]
			}
			var using string
			switch strategy {
			case Leases:
				using = fmt.Sprintf(`num_replicas = COPY FROM PARENT, constraints = '{"+%s": 1}', lease_preferences = '[[+%s]]'`, key, key)
			default:
				using = fmt.Sprintf(`constraints = '[+%s]'`, key)
			}
			target := "TABLE " + o.table
			if o.index != "" {
				target = "INDEX " + o.table + "@" + o.index
			}
			out = append(out, fmt.Sprintf("ALTER PARTITION p%d_%d OF %s CONFIGURE ZONE USING %s", o.idx, i, target, using))
		}
	}
	return out, nil
}

// PartitionCockroach partitions a CockroachDB TPC-C database by warehouse
// range and pins the partitions (PartitionStatements), then records the
// count in benchrig_meta. It is idempotent like CockroachDB's workload:
// tables already partitioned p.Count ways are left alone, another count is
// an error. `tpcc init --partitions` calls it; so can `tpcc run
// --partitions` for the recipes that partition after the import.
func PartitionCockroach(ctx context.Context, db DB, p Partitions, strategy PartitionStrategy, zones []string) error {
	stmts, err := PartitionStatements(p, strategy, zones)
	if err != nil {
		return err
	}
	var have int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM crdb_internal.tables t
JOIN crdb_internal.partitions pt USING (table_id)
WHERE t.name = 'warehouse' AND t.database_name = current_database() AND pt.name ~ '^p0_[0-9]+$'`).Scan(&have); err != nil {
		return fmt.Errorf("partition: read crdb_internal.partitions: %w", err)
	}
	switch have {
	case p.Count:
		return nil
	case 0:
	default:
		return fmt.Errorf("partition: tables are partitioned %d ways, asked for %d", have, p.Count)
	}
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			return fmt.Errorf("partition: %s: %w", firstLine(s), err)
		}
	}
	if err := recordPartitions(ctx, db, p.Count); err != nil {
		return fmt.Errorf("partition: %w", err)
	}
	return nil
}
