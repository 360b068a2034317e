// Package tpcc is benchrig's embedded TPC-C driver (TPC-C Standard
// Specification revision 5.11), run on workload hosts as `benchrig tpcc`.
//
// The data side creates the schema (clause 1.3), populates it (clause
// 4.3.3.1) and verifies the consistency conditions (clause 3.3.2). It
// targets PostgreSQL and CockroachDB through pgx.
//
// Population streams rows straight from the generator into COPY FROM STDIN
// (text format), one warehouse per connection at a time: no table is
// built in memory and the client stays far below the server's CPU, so a
// load measures the database. Each warehouse is its own unit of
// idempotence: a marker row in benchrig_loaded is written in the same
// transaction (PostgreSQL) or after all its rows (CockroachDB, which
// deletes a half-loaded warehouse's rows first), so an interrupted load
// resumed with the same flags finishes only the missing warehouses and
// never duplicates rows. Several hosts can load disjoint --from/--to
// ranges of one database in parallel.
//
// Generation is deterministic for a seed: warehouse w's tables are drawn
// from their own PCG streams of (seed, w), so any subset of warehouses can
// be (re)generated in any order on any host. The NURand C-Load constants
// (clause 2.1.6) derive from the seed and are stored in benchrig_meta by
// init, so that a run on another host picks a C-Run whose delta to C-Load
// is valid (clause 2.1.6.1).
//
// # Schema
//
// Table and column names are the spec's (clause 1.3), lower case; the ORDER
// table is "order" (quoted: a reserved word), as in CockroachDB's
// workload. See the // Schema comment in schema.go.
package tpcc
