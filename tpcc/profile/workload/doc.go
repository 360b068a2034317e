// Package workload is CockroachDB workload's load profile (v20.1,
// docs/fidelity/v20.1.md, each row anchored in this package by a
// fidelity: comment): its statements in its order and round trips
// (one file per transaction, new_order.go ... stock_level.go; New-Order
// in 15; txn.go holds what they share), the savepoint retry protocol of
// cockroach-go's ExecuteInTx without a limit, 2 connections per active
// warehouse of the whole run on every host, every connection warmed and
// its statements prepared before the run, workers starting linearly over
// --ramp, remote warehouses drawn from all active ones, and its NURand
// constants (C-Run = C-Load, tpcc.WorkloadConstants). Profile is a
// tpcc.LoadProfile; tpcc/profile.Choose makes it for a run.
//
// Where a statement is CockroachDB-only SQL, PostgreSQL gets the nearest
// statement that parses there (testdata/wl_statements.*.golden pins both),
// so that the profile runs for real against PostgreSQL here.
//
// # What it must not know
//
// It holds no part of the benchmark: the schema, data, deck, terminals,
// scheduling, audit and results are tpcc's, which it imports; it reports
// through tpcc.Tally and tpcc.Executor's results only. It knows no other
// profile and nothing of the run's composition (tpcc/profile). It is the
// one package under tpcc that may ask crdb what differs per release
// (orchestrator/crdb_layout_test.go); it does not yet need to.
package workload
