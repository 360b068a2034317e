package tpcc

import (
	"net/url"
	"strconv"
)

// currentGeneratorFlags are the tpcc generator flags a v25.1+ workload
// sends in every workload:// source: the flags of its tpcc.go that are
// not RuntimeOnly. That file (docs/fidelity/v25.4.md names the version
// read) defines warehouses, fks and families, and the seed through
// RandomSeed.AddFlag; every other flag (partitions, workers, conns,
// replicate-static-columns, deprecated-fk-indexes, ...) is in its
// RuntimeOnly Meta map, and the connection flags are the conn flags'.
// interleaved, which v21.1 sent, is gone. A flag the server does not
// know fails the IMPORT, so the set is exact, not a superset.
func currentGeneratorFlags(o ImportOptions) url.Values {
	v := currentSourceFlags()
	v.Set("fks", strconv.FormatBool(o.FKs))
	v.Set("seed", strconv.FormatUint(o.Seed, 10))
	v.Set("warehouses", strconv.Itoa(o.Warehouses))
	return v
}

// currentSourceFlags are the v25.1+ generator flags beyond fks, seed and
// warehouses, with workload's defaults.
func currentSourceFlags() url.Values { return url.Values{"families": {"false"}} }
