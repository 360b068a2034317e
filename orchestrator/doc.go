// Package orchestrator turns a benchmark plan into stages of steps and
// runs them through an Executor.
//
// A plan (YAML, strictly decoded: unknown fields are errors, and every
// problem is reported at once as file:line:col) names database nodes with
// their racks, workload hosts, binaries, settings, a licence reference and
// the TPC-C parameters. Compile turns it into the ordered stages install,
// start, init, configure, import, partition, swap, allocate, run, collect
// and merge, each a list of steps per host; the flavor (cockroach or
// postgres) decides the commands. Compile connects nowhere and reads no
// secret.
//
// Runner executes stages. Dry-run is not a separate path: it is the
// Runner with remote.Recorder as the Executor, so what it lists is what a
// run sends. The orchestrator builds commands as argument vectors and SQL
// with sqlLiteral; it never writes shell text itself (remote.ShellJoin
// does, for every command).
package orchestrator
