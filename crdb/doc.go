// Package crdb is what benchrig knows about CockroachDB releases: their
// versions and patch levels (Version, Build), and per build one Release
// value that answers everything that changes with the release — the
// tpcc generator version and its source flags, the statistics tables,
// the partitioned objects, item's replica index names, workload's
// URL-to-partition (affinity) mapping, the retired cluster settings, the
// licence rule, how a node logs and stops, what a session says before
// reading crdb_internal, the settle criterion (SettleStatements: the
// lease queue too from v24.1), the name its workload accepts for a
// histogram file (.json from v24.3) and the flags of its `workload run
// tpcc`. The code behind each row of docs/fidelity/<release>.md carries
// the row's tag (fidelity:<release>/<id>); internal/fidelity checks them.
//
// The Release is looked up once (Build.Release: from the plan's binary
// name or cockroach_version, or from the server) and asked; nothing
// outside crdb/... compares a version (the orchestrator's layout test
// greps for it). A new release is a new entry of changes in release.go,
// with its source, and its conformance rows beside it in release_test.go
// and docs/fidelity/<release>.md.
//
// crdb is facts: it knows no TPC-C (it imports neither the benchmark
// package tpcc nor the orchestrator). CockroachDB's IMPORT statements and
// jobs and its partitioning DDL, which need the benchmark's schema, are
// in crdb/fixtures.
package crdb
