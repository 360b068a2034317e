// Package report writes a run's report from its run directory: report.md
// for people, report.json for tools ("schema": "benchrig.report/v1",
// specified in docs/schema/report.v1.json), and plots (tpmc.svg, tpmC over
// time; latency.svg, latency percentiles per transaction).
//
// It reads only what a run left behind: the state, the drivers' result
// files (benchrig.result/v1: each workload host's tpcc.run, the merge
// stage's tpcc.merge, crud, fio, clock) and the collected histograms,
// merged by tpcc/result.MergeFiles, the one merge `benchrig tpcc merge` uses.
// It never parses what a driver printed. So a report can be made again at
// any time with `benchrig report RUN_DIR`; secrets never reach it (the
// plan's licence appears only as where its key is read from).
package report
