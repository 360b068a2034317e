// Package histogram records TPC-C latencies and reads and writes them in the
// ndjson format of CockroachDB's `workload run --histograms`, so that
// `benchrig tpcc merge` accepts files written by either tool and CockroachDB's
// `workload debug tpcc-merge-results` accepts ours.
//
// One line is one per-tick delta of one operation: an HdrHistogram snapshot
// (100µs..100s in nanoseconds, 1 significant figure: 288 buckets), the tick's
// length and its end time. The cumulative distribution of a run is the merge
// of all its lines. The merge arithmetic (duration, tpmC, efficiency with the
// 12.605 deck factor) follows tpcc-merge-results exactly, including its
// quirks, so published numbers can be compared to ours.
//
// The package knows TPC-C's operation names and response-time limits but
// nothing about SQL or terminals; package tpcc feeds it durations.
package histogram
