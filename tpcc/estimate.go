package tpcc

import (
	"fmt"
	"time"
)

// Rows per warehouse of workload's (and the spec's, clause 4.3.3.1)
// population, and the fixed item table. order_line has 5..15 lines per
// order: 3,001,222 rows for 10 warehouses with seed 1 (cockroach.md §4.3),
// i.e. 300,122.2 per warehouse.
const (
	rowsPerWarehouseFixed = 1 + 10 + 30000 + 30000 + 30000 + 9000 + 100000
	orderLinesPer10W      = 3001222
	itemRows              = 100000
	// bytesPerWarehouse is the unreplicated size the recipes state: 80 GB
	// per 1,000 warehouses, 8 TB for 100,000 (cockroach.md §4.3).
	bytesPerWarehouse = 80_000_000
)

// Import rates of the published recipes (cockroach.md §4.1, v20.1 docs),
// in warehouses per node-hour: 100,000 warehouses in about 6 h on 81
// nodes, and 10,000 in about 2 h on 15 nodes.
const (
	rate100k = 100000.0 / (6 * 81) // 205.8
	rate10k  = 10000.0 / (2 * 15)  // 333.3
)

// ImportEstimate is what a workload:// import of W warehouses on N nodes
// should take: every node generates and ingests its share, so the time
// scales with W/N.
type ImportEstimate struct {
	Warehouses, Nodes int
	Rows              int64
	Bytes             int64 // unreplicated; replicas multiply the disk use
	// Duration assumes the 100k recipe's per-node rate, the slower of the
	// two published; Fastest the 10k recipe's.
	Duration, Fastest time.Duration
}

// EstimateImport estimates an import (warehouses, nodes >= 1).
func EstimateImport(warehouses, nodes int) ImportEstimate {
	w, n := int64(max(warehouses, 1)), max(nodes, 1)
	hours := func(rate float64) time.Duration {
		return time.Duration(float64(w) / (float64(n) * rate) * float64(time.Hour)).Round(time.Minute)
	}
	return ImportEstimate{
		Warehouses: int(w), Nodes: n,
		Rows:     w*rowsPerWarehouseFixed + w*orderLinesPer10W/10 + itemRows,
		Bytes:    w * bytesPerWarehouse,
		Duration: hours(rate100k), Fastest: hours(rate10k),
	}
}

// String is the dry-run's line, with the assumption stated.
func (e ImportEstimate) String() string {
	return fmt.Sprintf("import estimate: %d warehouses on %d nodes: %s rows, %s (unreplicated), about %s (%s at best); "+
		"assumes %.0f warehouses per node-hour, the published 100k recipe's (100,000 in ~6 h on 81 nodes; the 10k recipe's 10,000 in ~2 h on 15 nodes gives %.0f)",
		e.Warehouses, e.Nodes, human(float64(e.Rows)), humanBytes(e.Bytes), e.Duration, e.Fastest, rate100k, rate10k)
}

// humanBytes renders a byte count in decimal units (the recipes' TB).
func humanBytes(b int64) string {
	v := float64(b)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if v < 1000 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", v)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1000
	}
	return ""
}
