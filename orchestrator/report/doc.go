// Package report writes a run's report from its run directory: report.md
// for people, report.json for tools, and plots (tpmc.svg, tpmC over time;
// latency.svg, latency percentiles per transaction). It reads only what a
// run left behind (state, logs, collected histograms), so a report can be
// made again at any time with `benchrig report RUN_DIR`; secrets never
// reach it (the plan's licence appears only as where its key is read from).
package report
