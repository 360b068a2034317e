// Package result is the envelope every driver's JSON result shares:
// `"schema": "benchrig.result/v1"` and a `"kind"` naming the driver
// ("tpcc.run", "tpcc.merge", "crud", "fio", "clock"). The types of each
// kind live in the package of the driver that writes them (tpcc/result, crud,
// orchestrator/probe); this package only stamps, checks and writes the
// envelope, so that a reader refuses a file of another kind or of a
// schema version it does not know instead of misreading it.
//
// The JSON Schema of every kind is docs/schema/result.v1.json (and
// result.v2.json: v1 plus an incomplete merge); a change
// that would make an old reader misread a file gets a new version.
package result
