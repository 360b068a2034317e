// Package crud is benchrig's second embedded workload, `benchrig crud`: the
// seed's simple CRUD micro-benchmark (seeds/002, "CockroachDB Benchmark on
// Different Disk Types"), run against PostgreSQL or CockroachDB through
// pgx.
//
// # What the seed measured, and how this package reads it
//
// The seed ran "100 goroutines, 400 records insert/update per goroutine,
// the record is only integer and string. Queries done 10x for select, and
// 300x for select-many", and printed nine figures per disk. Its own
// numbers pin the interpretation down: on TMPFS, SelMany Row/s ÷ SelMany
// Q/s = 8194872 ÷ 20487 = 400 rows per query, i.e. one goroutine's whole
// key range; 100 × 400 × 10 selects in 4.9 s is 81,600 Q/s (printed:
// 81274); 100 × 300 select-many queries in 1.5 s is 20,000 Q/s (printed:
// 20487); 40,000 inserts in 1.3 s is 30,769 Q/s (printed: 31419, so
// 1.27 s rounded).
//
// So, with G goroutines (--goroutines, default 100) and R records per
// goroutine (--records, default 400):
//
//   - Goroutine g owns the keys KeyOffset+g·R+1 … KeyOffset+(g+1)·R; a
//     record is (id BIGINT PRIMARY KEY, content TEXT).
//   - Four phases run one after another, each starting only when the
//     previous one has finished on every goroutine: insert all, update all,
//     select-one, select-many. A phase's duration is wall-clock, from the
//     moment all goroutines are released until the last one finishes. Every
//     goroutine holds its own connection, opened and with its statements
//     prepared before the first phase, so no phase pays for connecting.
//   - Insert: each goroutine inserts each of its R records once, one
//     autocommit statement each. Insert Q/s = G·R ÷ Ins Dur.
//   - Update: each goroutine updates the content of each of its records
//     once. Update Q/s = G·R ÷ Upd Dur.
//   - Select-one: each goroutine selects each of its records by primary key
//     --select-repeat times (default 10). Select1 Q/s = G·R·repeat ÷
//     Sel Dur.
//   - Select-many: each goroutine runs --many-repeat queries (default 300),
//     each returning all R rows of its own key range (a primary-key range
//     scan, ordered by id). SelMany Q/s = G·repeat ÷ Many Dur; SelMany
//     Row/s = rows returned ÷ Many Dur.
//
// Statements are prepared once per connection (pgx, extended protocol)
// and executed autocommit, as the seed's driver did. Every phase verifies
// what it did: an update must hit exactly one row, a select must return
// the updated content, a select-many must return the whole range in order;
// a mismatch is a *CheckError (the CLI exits 30), not a silently faster
// number.
//
// Without --drop the table is created if missing and the run's own key
// range is deleted first, so a rerun works; with --drop the table is
// recreated, which is the clean state a disk comparison should start from
// (deleted rows leave dead tuples behind on PostgreSQL). Several workload
// hosts can share one table by giving each a disjoint --key-offset (say
// host i gets i·G·R) and no --drop; they may start at the same moment, as
// a losing concurrent CREATE TABLE IF NOT EXISTS is recognised. Each host
// times its own phases: phases of different hosts are not aligned with
// each other.
//
// Every goroutine holds a connection for the whole run, so the server's
// max_connections must exceed G (PostgreSQL's default of 100 is just
// enough for the seed's 100 as a superuser); a refusal is reported with
// that hint before any phase starts.
//
// Output is the seed's nine columns, with its exact names, either
// tab-separated like the seed (WriteTSV) or aligned (WriteAligned), and a
// JSON document (WriteJSON) for the orchestrator's report.
package crud
