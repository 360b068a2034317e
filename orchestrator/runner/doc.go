// Package runner executes compiled stages through an Executor: stages in
// order, the phases of a stage in order, the hosts of a phase in parallel
// up to a limit (or one by one), each host's steps in order; detached jobs
// that survive a disconnect; waits; a line search driven by its verdicts;
// a stage's check judged over every host's probes.
//
// It declares what it needs and nothing more: Executor (remote/ implements
// it; remote.Recorder makes the dry-run), Progress (the resume points,
// implemented by rundir.State) and Observer. It neither prints nor writes
// files itself: it emits events (stage and step started, done, failed...)
// and the console (Console, here), the state file, the logs and the
// journal observe them. That keeps its semantics testable with a recording
// executor, and the dry-run the same code path as a run.
package runner
