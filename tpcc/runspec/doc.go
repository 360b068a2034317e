// Package runspec is the shape of a `benchrig tpcc run` as data, shared
// by the plan's validation and the driver: the --wait forms (ParseWait),
// the load profiles' names (Profile, ParseProfile), the flags a plan may
// not give in extra_flags (PlanSetFlags), the histogram files' names
// (HistogramSuffixes, HistogramStem), the warehouses' split into
// partitions (Partitions, workload's makePartitioner) and what the driver
// refuses of a run before it connects (Check, HostTerminals,
// CheckWorkers).
//
// It owns no SQL, no connection and no load: it must not know the
// driver (tpcc and its other subpackages import it, never the reverse)
// nor any CockroachDB release. orchestrator/plan imports it instead of
// tpcc (orchestrator's TestPlanDoesNotImportDriver fails if plan reaches
// the driver), so validating a plan compiles no benchmark.
package runspec
