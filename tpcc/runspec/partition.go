package runspec

import (
	"fmt"
	"sort"
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
