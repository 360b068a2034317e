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

// workloadRunFlagsCurrent is v25.x's: the v25.4 documentation's (the
// connection flags of all workloads and the tpcc table of
// cockroach-workload.md, --histograms-max-latency), PR #129221's
// --histogram-export-format and --openmetrics-labels, and the generator
// flags of the stored v25 tpcc.go (docs/fidelity/v25.4.md row 44 and the
// facts read without a commit).
var workloadRunFlagsCurrent = setOf(
	"max-conn-lifetime", "max-conn-lifetime-jitter", "max-conn-idle-time", "conn-healthcheck-period", "min-conns",
	"tolerate-errors", "max-rate", "max-ops", "count-errors", "duration", "init", "ramp", "display-every", "display-format",
	"histograms", "histograms-max-latency", "histogram-export-format", "openmetrics-labels",
	"drop", "data-loader", "init-conns", "prometheus-port", "secure", "user", "password",
	"db", "concurrency", "method",
	"seed", "warehouses", "fks", "deprecated-fk-indexes", "mix", "wait", "workers", "active-workers", "conns", "idle-conns",
	"txn-retries", "partitions", "ignore-partitions", "client-partitions", "partition-affinity", "partition-strategy",
	"zones", "regions", "survival-goal", "active-warehouses", "scatter", "split", "expensive-checks", "families",
	"replicate-static-columns", "local-warehouses", "query-trace-file", "txn-preamble-file", "aost", "repair-order-ids",
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
