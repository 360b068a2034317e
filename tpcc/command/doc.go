// Package command is `benchrig tpcc ...`: the command-line argument types
// (InitArgs, LoadArgs, CheckArgs, RunArgs, RunOutputs, ImportArgs,
// MergeArgs, Target, UsageError) and the flows they run. cmd/benchrig only
// parses flags into them (internal/cliargs) and calls Run.
//
// It is the layer above the benchmark that chooses, once, what depends on
// the database release: it turns --cockroach-version into the release's
// facts (crdb.Release) and gives the benchmark CockroachDB's fixtures as
// values (crdb/fixtures.RunFixtures as tpcc.CockroachFixtures, the
// partitioning of init), so that package tpcc knows no release. It knows
// nothing of the orchestrator.
package command
