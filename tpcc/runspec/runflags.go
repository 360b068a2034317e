package runspec

// PlanSetFlags are the `benchrig tpcc run` flags (cmd/benchrig/tpcc_run.go
// and tpcc_workload_flags.go define them) that a plan's tpcc.extra_flags
// may not give, each with the reason. The files a run writes are named by
// benchrig, never by a plan: a flag naming a file could point the driver's
// output anywhere on the hosts. The other flags are set from the plan's
// own fields; given again in extra_flags they would change the run behind
// what the dry-run, the state and the report say. cmd/benchrig's tests
// check that every flag of `tpcc run` taking a FILE is listed here.
var PlanSetFlags = map[string]string{
	"histograms": "it names an output file; benchrig names the run's files on the hosts (tpcc.histograms sets the name)",
	"ticks":      "it names an output file; benchrig names the run's files on the hosts",
	"result":     "it names an output file; benchrig names the run's files on the hosts",

	"warehouses":         "set from tpcc.warehouses",
	"active-warehouses":  "set from tpcc.active_warehouses (or tpcc.sweep/search)",
	"partitions":         "set from tpcc.partitions",
	"partition-affinity": "set from the workload hosts' partitions",
	"partition-strategy": "set from tpcc.partition_strategy",
	"zones":              "set from tpcc.zones",
	"ramp":               "set from tpcc.ramp",
	"duration":           "set from tpcc.duration",
	"wait":               "set from tpcc.wait",
	"workers":            "set from tpcc.workers (or tpcc.sweep)",
	"conns":              "set from tpcc.conns",
	"start-at":           "benchrig sets it so that every workload host starts together",
	"ready-file":         "benchrig sets it: the start barrier",
	"start-file":         "benchrig sets it: the start barrier",
	"cockroach-version":  "set from tpcc.cockroach_version",
	"db":                 "set from tpcc.database",
}
