// Package stages compiles a plan into its ordered stages (preflight,
// install, start, init, configure, import, partition, swap, allocate, run,
// collect, merge), each a list of steps per host.
//
// Stages and steps are plain data: argument vectors, transfers, waits,
// detached jobs, a stage's Check (its limits) and a line Search (bounds and
// one iteration's steps). Nothing in them is a function, so a dry-run shows
// everything a stage will do. What differs between databases is a flavor
// (cockroach.go, postgres.go); what differs between benchmarks is a
// Workload (tpcc.go, search.go, crud.go). The cockroach flavor follows
// CockroachDB's workload for the plan's release: its import issues the
// IMPORT statements of `workload fixtures import` through `benchrig tpcc
// import`, and a step's Shows carries, computed at compile time from the
// tpcc package's pure functions, the SQL a command will issue (the import
// statements and estimate, the partitioning) for the dry-run to list;
// with driver: workload (workloaddriver.go) CockroachDB's own workload
// (the cluster's binary as `cockroach workload`, or binaries.workload)
// runs the recipe's own commands. What differs between CockroachDB
// releases and patch levels is one value, crdb.Release (plan.Release), which the
// stages ask; none compares a version. Compile connects nowhere and reads no
// secret. The package knows nothing of how steps are executed.
package stages
