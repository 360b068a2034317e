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
// (clause 2.1.6) are CockroachDB workload's for the seed (wl_rand.go), as
// `workload init` generates them (a `workload://` IMPORT's nodes generate
// with C = 0: DataCLoad);
// init stores them in benchrig_meta, and without it a run derives them
// from the seed. The pipelined profile picks a C-Run whose delta to
// C-Load is valid (clause 2.1.6.1); the workload profile uses workload's
// (C-Run = C-Load for C_LAST).
//
// # Schema
//
// Table and column names are the spec's (clause 1.3), lower case; the ORDER
// table is "order" (quoted: a reserved word), as in CockroachDB's
// workload. See the // Schema comment in schema.go.
//
// # Run
//
// The run side (Run, `benchrig tpcc run`) emulates 10 terminals per active
// warehouse (clause 4.2.2), each with its own 23-card deck reshuffled every
// pass (clause 5.2.4.2), constant keying times and truncated-exponential
// think times (clause 5.2.5), scaled by --wait. Terminals are 48-byte
// structs in a min-heap keyed by due time, not goroutines: executor
// goroutines, one per connection, take due terminals per connection pool,
// so 200,000 terminals cost about 10 MiB. Response time runs from the due
// time to completion (clause 5.3), so waiting for a free connection
// counts. With --wait=false, --workers goroutines loop over their decks.
//
// A load profile, chosen once per run, says which SQL the terminals send:
// Run drives a LoadProfile value (loadprofile.go: the interface and what
// a profile gets, Session, Pool, Home; tally.go, Tally; inputs.go, the
// transactions' inputs), which the run's composition point makes from
// the profile's name (RunConfig.ChooseProfile, tpcc/profile.Choose). The
// profiles are packages above this one: the pipelined profile
// (tpcc/profile/pipelined) follows clauses 2.4 to 2.8, batched into few
// round trips with pgx pipelines and cached prepared statements, taking
// row locks in a fixed order; the functions profile
// (tpcc/profile/functions) makes each transaction one PL/pgSQL call,
// which tpcc init installs through InitOptions.Install. The workload
// profile (tpcc/profile/workload) sends
// CockroachDB workload v20.1's statements one round trip each under its
// savepoint retry protocol, with its connection count, warm-up and linear
// ramp (docs/fidelity/v20.1.md); it is the default on CockroachDB.
// Serialization failures and deadlocks (40001, 40P01) are retried and
// counted apart from errors; the 1% New-Order rollback is a completed
// New-Order. PostgreSQL runs REPEATABLE READ by default, CockroachDB
// SERIALIZABLE.
//
// Latencies go to package histogram, whose ndjson ticks are those of
// CockroachDB's --histograms; the single-run efficiency uses 12.86 tpmC per
// active warehouse of this host (not CockroachDB's newer partitionFactor
// correction: a host driving 5 of 27 partitions reports efficiency over its
// own warehouses, which is what its terminals can produce) and, labelled
// beside it, workload's per-host efc over all active warehouses of the run;
// `tpcc merge` uses tpcc-merge-results' 12.605 over the total.
//
// What a run leaves behind is in tpcc/result, below this package: the
// result files and the merge (MergeFiles), the display ticks (Run builds
// them with a result.TickBuilder and hands them to its result.TickSink:
// the --ticks files, the live metrics) and the names and records of the
// files beside a histogram file. NewResult (runresult.go) turns a
// RunResult into a result.Result; tpcc/result imports no part of the run.
//
// # What it must not know
//
// tpcc knows no CockroachDB release: it imports neither crdb nor
// crdb/fixtures (the orchestrator's layout test fails if it does). Nor
// does it know the load profiles above it: it imports neither
// tpcc/profile nor a profile (layout_test.go), and a run without
// ChooseProfile is refused. What
// differs per release reaches it as values from the command layer
// (tpcc/command): RunConfig.URLPerAffinity, RunConfig.Cockroach (a
// CockroachFixtures: partitioning and --scatter) and InitOptions.Partition.
// CockroachDB's IMPORT and partitioning DDL are in crdb/fixtures, the
// command-line types and flows in tpcc/command.
//
// The run's shape as data (ParseWait, the profile names, PlanSetFlags,
// Partitions and the checks RunNeeds makes before connecting) is in the
// leaf tpcc/runspec, which this package imports and re-exports under its
// old names (runspec_names.go): a plan's validation asks runspec, never
// this package (orchestrator's TestPlanDoesNotImportDriver).
package tpcc
