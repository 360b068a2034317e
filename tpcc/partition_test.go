package tpcc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/crdb"
)

func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		w, a, p int
		ranges  [][2]int
		active  [][2]int
	}{
		// cockroach.md §2's example: bounds [0,6,13,20], active
		// [[0,1,2],[6,7,8],[13..16]].
		{20, 10, 3, [][2]int{{0, 5}, {6, 12}, {13, 19}}, [][2]int{{0, 2}, {6, 8}, {13, 16}}},
		{10, 10, 1, [][2]int{{0, 9}}, [][2]int{{0, 9}}},
		{10, 10, 10, [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}, {9, 9}}, nil},
		{5, 2, 5, nil, [][2]int{{0, -1}, {1, 0}, {2, 2}, {3, 2}, {4, 4}}}, // sizes 0,0,1,0,1
	} {
		p, err := NewPartitions(tc.w, tc.a, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range tc.ranges {
			if lo, hi := p.Range(i); lo != want[0] || hi != want[1] {
				t.Errorf("W=%d P=%d: Range(%d) = %d..%d, want %d..%d", tc.w, tc.p, i, lo, hi, want[0], want[1])
			}
		}
		for i, want := range tc.active {
			if lo, hi := p.ActiveRange(i); lo != want[0] || hi != want[1] {
				t.Errorf("W=%d A=%d P=%d: ActiveRange(%d) = %d..%d, want %d..%d", tc.w, tc.a, tc.p, i, lo, hi, want[0], want[1])
			}
		}
		// Of is the inverse of Range, and the ranges tile 0..W-1.
		next := 0
		total := 0
		for i := 0; i < p.Count; i++ {
			lo, hi := p.Range(i)
			if lo != next {
				t.Errorf("W=%d P=%d: partition %d starts at %d, want %d", tc.w, tc.p, i, lo, next)
			}
			next = hi + 1
			for w := lo; w <= hi; w++ {
				if got := p.Of(w); got != i {
					t.Errorf("Of(%d) = %d, want %d", w, got, i)
				}
			}
			alo, ahi := p.ActiveRange(i)
			if ahi >= alo {
				total += ahi - alo + 1
				if alo < lo || ahi > hi {
					t.Errorf("active %d..%d outside partition %d..%d", alo, ahi, lo, hi)
				}
			}
		}
		if next != tc.w || total != tc.a {
			t.Errorf("W=%d A=%d P=%d: ranges end at %d, %d active; want %d, %d", tc.w, tc.a, tc.p, next-1, total, tc.w, tc.a)
		}
		// The 0-based bounds are workload's: (i*W)/P.
		for i := 0; i < p.Count; i++ {
			lo, hi := p.Bounds(i)
			if lo != i*tc.w/tc.p || hi != (i+1)*tc.w/tc.p {
				t.Errorf("W=%d P=%d: Bounds(%d) = [%d,%d)", tc.w, tc.p, i, lo, hi)
			}
			alo, ahi := p.ActiveBounds(i)
			rlo, rhi := p.ActiveRange(i)
			if alo != rlo || ahi-1 != rhi {
				t.Errorf("ActiveBounds(%d) = [%d,%d) but ActiveRange = %d..%d", i, alo, ahi, rlo, rhi)
			}
		}
		if p.Of(-1) != -1 || p.Of(tc.w) != -1 {
			t.Errorf("Of outside 0..W-1 must be -1")
		}
	}
}

func TestPartitionsInvalid(t *testing.T) {
	for _, tc := range []struct{ w, a, p int }{
		{0, 0, 1}, {10, 10, 0}, {10, 10, 11}, {10, 11, 2}, {10, 0, 2},
	} {
		if _, err := NewPartitions(tc.w, tc.a, tc.p); err == nil {
			t.Errorf("NewPartitions(%d, %d, %d) succeeded", tc.w, tc.a, tc.p)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"postgres", "cockroach"} {
		d, err := ParseDialect(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseDialect(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseDialect("mysql"); err == nil {
		t.Error("ParseDialect(mysql) succeeded")
	}
	for _, s := range []string{"replication", "leases"} {
		st, err := crdb.ParsePartitionStrategy(s)
		if err != nil || st.String() != s {
			t.Errorf("ParsePartitionStrategy(%q) = %v, %v", s, st, err)
		}
	}
	if _, err := crdb.ParsePartitionStrategy("random"); err == nil {
		t.Error("ParsePartitionStrategy(random) succeeded")
	}
}

// TestWorkloadPartitionGolden pins the exact partitioning statements for
// the shipped plans' parameters (plans/tpcc-10k.yaml: W=10,000 P=5;
// plans/tpcc-100k.yaml: W=100,000 P=27) at both v20.1 patch levels whose
// workload differs, checked against the release-20.1 source
// (docs/fidelity/v20.1.md): v20.1.0-.8 skip "order"@order_idx and
// partition the three FK indexes, v20.1.9+ partition order_idx and no FK
// index; bounds (i*W)/P on 0-based ids, names p<idx>_<i>, zone configs
// per strategy, item replicas replicated_idx_<i> (item_idx_<i> with
// replicateColumns, v21.1) pinned to rack i.
func TestWorkloadPartitionGolden(t *testing.T) {
	b := func(s string) crdb.Build {
		b, err := crdb.ParseBuild(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name          string
		b             crdb.Build
		w, p          int
		strategy      crdb.PartitionStrategy
		zones         []string
		static, fkIdx bool
		objects       []string // partitioned objects, in order
	}{
		{"partition_w10000_p5_v20.1.8", b("v20.1.8"), 10000, 5, crdb.Replication, nil, false, true, v2018},
		{"partition_w10000_p5_v20.1.17", b("v20.1.17"), 10000, 5, crdb.Replication, nil, false, true, v2019},
		{"partition_w100000_p27_v20.1.8", b("v20.1.8"), 100000, 27, crdb.Replication, nil, false, true, v2018},
		{"partition_w100000_p27_v20.1.17", b("v20.1.17"), 100000, 27, crdb.Replication, nil, false, true, v2019},
		{"partition_w20_p3_leases_static_v21.1", b("v21.1"), 20, 3, crdb.Leases, nil, true, false, v2019},
		{"partition_w20_p3_zones_v20.2", b("v20.2"), 20, 3, crdb.Replication, []string{"us-east1-b", "us-west1-b", "europe-west2-b"}, false, false, v2019},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := NewPartitions(tc.w, tc.w, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := WorkloadPartitionStatements(PartitionOptions{Version: tc.b.Version, Build: tc.b, Parts: parts, Strategy: tc.strategy,
				Zones: tc.zones, ReplicateStaticColumns: tc.static, FKIndexes: tc.fkIdx})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(stmts, ";\n") + ";\n"
			golden(t, tc.name, got)
			// Independent of the golden: the objects in order and the counts.
			var objs []string
			for _, s := range stmts {
				if f := strings.Fields(s); len(f) > 3 && f[3] == "PARTITION" && f[4] == "BY" {
					objs = append(objs, f[2])
				}
			}
			if strings.Join(objs, " ") != strings.Join(tc.objects, " ") {
				t.Errorf("partitioned objects\n got %v\nwant %v", objs, tc.objects)
			}
			replicaTables := 1
			if tc.static {
				replicaTables = 3
			}
			if want := len(tc.objects)*(1+tc.p) + 2*tc.p*replicaTables; len(stmts) != want {
				t.Errorf("%d statements, want %d", len(stmts), want)
			}
			for i := 0; i < tc.p; i++ {
				item := fmt.Sprintf("CREATE UNIQUE INDEX replicated_idx_%d ON item (i_id) STORING (i_im_id, i_name, i_price, i_data)", i)
				if tc.static {
					item = fmt.Sprintf("CREATE UNIQUE INDEX item_idx_%d ON item (i_id) STORING (i_im_id,i_name,i_price,i_data)", i)
				}
				if !strings.Contains(got, item+";\n") {
					t.Errorf("no item replica %d: %s", i, item)
				}
				lo, hi := i*tc.w/tc.p, (i+1)*tc.w/tc.p
				if !strings.Contains(got, fmt.Sprintf("PARTITION p0_%d VALUES FROM (%d) to (%d)", i, lo, hi)) {
					t.Errorf("no partition p0_%d [%d,%d)", i, lo, hi)
				}
			}
		})
	}
	// The 100k recipe's first partition.
	parts, _ := NewPartitions(100000, 100000, 27)
	stmts, _ := WorkloadPartitionStatements(PartitionOptions{Version: crdb.Version{Major: 20, Minor: 1}, Parts: parts, FKIndexes: true})
	if !strings.Contains(stmts[0], "PARTITION p0_0 VALUES FROM (0) to (3703),\n") ||
		!strings.Contains(stmts[0], "PARTITION p0_26 VALUES FROM (96296) to (100000)\n") {
		t.Errorf("warehouse partitioning:\n%s", stmts[0])
	}
	if stmts[1] != "ALTER PARTITION p0_0 OF TABLE warehouse CONFIGURE ZONE USING constraints = '[+rack=0]'" {
		t.Errorf("zone config: %s", stmts[1])
	}
	if want := `ALTER INDEX item@replicated_idx_0 CONFIGURE ZONE USING num_replicas = COPY FROM PARENT, constraints = '{"+rack=0":1}', lease_preferences = '[[+rack=0]]'`; !slices.Contains(stmts, want) {
		t.Errorf("no %s", want)
	}
}

// The partitioned objects of v20.1.0-.8 (v2018: "order"@order_idx
// skipped, FK indexes partitioned) and of v20.1.9+ (v2019).
var (
	v2018 = []string{"warehouse", "district", "new_order", `"order"`, "order_line", "order_line@order_line_stock_fk_idx",
		"stock", "customer", "customer@customer_idx", "history", "history@history_customer_fk_idx", "history@history_district_fk_idx"}
	v2019 = []string{"warehouse", "district", "new_order", `"order"`, `"order"@order_idx`, "order_line",
		"stock", "customer", "customer@customer_idx", "history"}
)

func TestWorkloadPartitionInvalid(t *testing.T) {
	parts, _ := NewPartitions(20, 20, 3)
	if _, err := WorkloadPartitionStatements(PartitionOptions{Version: crdb.Version{Major: 20, Minor: 1}, Parts: parts, ReplicateStaticColumns: true}); err == nil {
		t.Error("--replicate-static-columns accepted for v20.1")
	}
	if ItemReplicaIndex(crdb.Version{Major: 20, Minor: 1}, 3) != "replicated_idx_3" || ItemReplicaIndex(crdb.Version{Major: 20, Minor: 2}, 3) != "replicated_idx_3" ||
		ItemReplicaIndex(crdb.Version{Major: 21, Minor: 1}, 3) != "item_idx_3" {
		t.Error("item replica names")
	}
	for _, zones := range [][]string{{"a", "b"}, {"a", "b", "c'd"}, {"a", "", "c"}, {"a", "b", "c]"}} {
		if _, err := WorkloadPartitionStatements(PartitionOptions{Parts: parts, Zones: zones}); err == nil {
			t.Errorf("zones %q accepted", zones)
		}
	}
}

func TestScatterStatements(t *testing.T) {
	s := ScatterStatements()
	if len(s) != 9 || s[5] != `ALTER TABLE "order" SCATTER` {
		t.Errorf("%q", s)
	}
}
