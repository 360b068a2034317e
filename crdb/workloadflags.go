package crdb

// The flags of `cockroach workload run tpcc` per release: a plan's extra
// flags for driver: workload (tpcc.extra_flags) must be the release's
// own (Release.CheckWorkloadFlag); the flags the plan sets itself and
// those that name files are refused by the plan's validation.

// workloadRunFlags201 is release-20.1's (0cb10f36): the run flags
// (pkg/workload/cli/run.go:44-69: tolerate-errors .. histograms-max-latency,
// the init flag drop, the shared pprofport and data-loader), the
// connection flags (pkg/workload/connection.go:35-39: db, concurrency,
// method) and the generator's (pkg/workload/tpcc/tpcc.go:167-198).
var workloadRunFlags201 = setOf(
	"tolerate-errors", "max-rate", "max-ops", "duration", "init", "ramp", "display-every", "display-format",
	"histograms", "histograms-max-latency", "drop", "pprofport", "data-loader",
	"db", "concurrency", "method",
	"seed", "warehouses", "fks", "deprecated-fk-indexes", "interleaved", "mix", "wait", "workers", "conns",
	"partitions", "client-partitions", "partition-affinity", "partition-strategy", "zones", "active-warehouses",
	"scatter", "serializable", "split", "expensive-checks",
)

// workloadRunFlagsCurrent is v25.x's, taken from the source files that
// define the flags `workload run tpcc` registers, file by file, not from
// the documentation's partial list (which lacked --isolation-level,
// --conn-vars and --warmup-conns). No v25.4 tag's tree is readable here
// (docs/fidelity/v25.4.md, "Read only in stored master texts"); the files
// read are the stored texts after PR #129221 (--histogram-export-format)
// and the v25 pgx pool (--warmup-conns).
var workloadRunFlagsCurrent = union(
	// pkg/workload/cli/run.go: runFlags, initFlags (each a run flag
	// implying --init), sharedFlags (pprofport hidden) and securityFlags.
	setOf("tolerate-errors", "max-rate", "max-ops", "count-errors", "duration", "init", "ramp",
		"drop",
		"pprofport", "data-loader", "init-conns", "prometheus-port", "operation-receiver",
		"display-every", "display-format", "histograms", "histogram-export-format", "histograms-max-latency", "openmetrics-labels",
		"secure", "user", "password"),
	// pkg/workload/connection.go: NewConnFlags, which tpcc adds to its
	// generator flags.
	setOf("db", "isolation-level", "conn-vars", "concurrency", "method", "dns-refresh", "conn-healthcheck-period",
		"min-conns", "max-conn-idle-time", "max-conn-lifetime", "max-conn-lifetime-jitter", "warmup-conns"),
	// pkg/workload/tpcc/tpcc.go: the generator's flags, and seed
	// (RandomSeed.AddFlag).
	setOf("warehouses", "fks", "deprecated-fk-indexes", "mix", "wait", "workers", "conns", "idle-conns", "txn-retries",
		"repair-order-ids", "partitions", "ignore-partitions", "client-partitions", "partition-affinity", "partition-strategy",
		"zones", "regions", "survival-goal", "active-warehouses", "active-workers", "scatter", "split", "expensive-checks",
		"families", "replicate-static-columns", "local-warehouses", "query-trace-file", "txn-preamble-file", "aost", "seed"),
)

// union is the names of every set.
func union(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for n := range s {
			m[n] = true
		}
	}
	return m
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
