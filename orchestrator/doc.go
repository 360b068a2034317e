// Package orchestrator runs benchmark plans: it is the facade cmd/benchrig
// calls (Run, Resume, Status, Report, LoadPlan, Show), wiring the packages
// below it, which each do one job and never import it:
//
//	plan/    the plan: strict YAML decoding, Normalize (defaults, a new
//	         value), a pure Validate; host patterns; secret references
//	stages/  Compile: a plan -> ordered stages of steps, plain data (argv,
//	         transfers, checks, searches), per flavor and per workload
//	runner/  executes stages through an Executor (remote/ implements it):
//	         order, fan-out limits, detached jobs, resume points; emits
//	         events to observers (the console is one)
//	rundir/  the run directory: layout, lock, state file (an observer and
//	         the resume points), logs, status
//	report/  the report of a run directory, from its result files
//
// Beside the run path, compare/, gate/, openmetrics/ and hostmetrics/
// read reports and host samples; probe/ holds the result types of the
// orchestrator's own probes. layout_test.go keeps the arrows pointing
// down and every file short.
//
// Dry-run is not a separate path: it is the runner with remote.Recorder as
// the Executor and the console in listing mode, so what it lists is what a
// run sends. Commands are built as argument vectors; remote.ShellJoin is
// the only place they become shell text.
package orchestrator
