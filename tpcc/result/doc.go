// Package result owns what the TPC-C driver leaves behind as data: the
// result files (benchrig.result/v1 and v2 of kind tpcc.run and
// tpcc.merge: Result, ReadResult, WriteResult), the one merge of several
// hosts' histogram files (MergeFiles, which `benchrig tpcc merge` and the
// report both call), the names of the files that sit beside a histogram
// file (ResultFileFor, TicksFileFor, DiedFileFor, WorkloadOutputFileFor,
// RefusedFileFor), the records of a host whose run died (Died) or whose
// files collect refused (WriteRefused), and a run's display ticks: what
// one holds (TickStats, built by TickBuilder from the recorder's
// intervals), the --ticks files (benchrig.ticks/v1: TickWriter) and the
// live metrics of --prometheus-port (LiveMetrics).
//
// The JSON field names and schema versions are docs/schema's
// (result.v1.json, result.v2.json, ticks.v1.json); a change that would
// make an old reader misread a file gets a new version.
//
// # What it must not know
//
// It knows no run and no CockroachDB release: it imports neither tpcc
// nor crdb nor crdb/fixtures, only the leaves tpcc/histogram and
// tpcc/runspec (orchestrator's TestResultImportsPointDown fails if it
// does). The run (package tpcc) imports it: Run builds its ticks with a
// TickBuilder and hands them to TickSinks, and tpcc.NewResult turns a
// RunResult into a Result of kind tpcc.run. Everything a host sent back
// is read as data from a party that may be hostile: bounded, decoded
// strictly, a host whose files fail that left out of a merge and named.
package result
