package crdb

import "net/url"

// currentSourceFlags are the tpcc generator flags a v25.1+ workload sends
// in every workload:// source beyond fks, seed and warehouses (which the
// import sets), with workload's defaults: the flags of its tpcc.go that
// are not RuntimeOnly. That file (docs/fidelity/v25.4.md names the
// version read) defines warehouses, fks and families, and the seed through
// RandomSeed.AddFlag; every other flag (partitions, workers, conns,
// replicate-static-columns, deprecated-fk-indexes, ...) is in its
// RuntimeOnly Meta map. interleaved, which v21.1 sent, is gone. A flag the
// server does not know fails the IMPORT, so the set is exact, not a
// superset.
func currentSourceFlags() url.Values { return url.Values{"families": {"false"}} }
