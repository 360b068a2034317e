// Package plan is the benchmark plan: its types, strict YAML decoding
// (unknown fields are errors, every problem is reported at once as
// file:line:col), defaults, validation, host range patterns ("node[01-81]")
// and secret references (read only when a step needs them, never printed).
//
// It is the bottom of the orchestrator: it imports nothing of it, so
// that plan show, dry-run, run and the report all read one plan the same
// way. It does not know how a plan is run.
package plan
