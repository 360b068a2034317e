// Package compare sets the results of two or more runs side by side, as
// performance engineers read them: per metric (tpmC, efficiency, each
// transaction's p50/p90/p95/p99/max latency, errors, retries) the value of
// every run, its change against the first run and, when the runs have
// repeats, whether the change is significant.
//
// Significance is Go's benchstat's own: golang.org/x/perf/benchmath's
// two-sided Mann-Whitney U test over the repeats (utest.go), at α = 0.05,
// "~" when the difference is not significant. The value shown for repeats
// is their median (as benchstat v2), with ± the largest deviation of a
// repeat from it. Results are read from each run's report.json (package
// report); the output is text, markdown or JSON (schema/compare.v1.json),
// and PlotCDF draws the latency distributions of the runs side by side.
package compare
