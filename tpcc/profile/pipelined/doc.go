// Package pipelined is benchrig's pipelined load profile, the default on
// PostgreSQL: the five transactions of clauses 2.4 to 2.8 (one file
// each: new_order.go ... stock_level.go), batched into as few round trips
// as their dependent steps allow with pgx pipelines (BEGIN travels with
// the first batch, COMMIT with the last; worker.go), their statements
// prepared by name once per connection, row locks taken in a fixed order
// so that concurrent transactions do not deadlock. Profile is a
// tpcc.LoadProfile paced as the spec's terminals are (tpcc.SpecPacing);
// tpcc/profile.Choose makes it for a run.
//
// # What it must not know
//
// It holds no part of the benchmark: the inputs (tpcc.Inputs), deck,
// terminals, scheduling, retries (tpcc.RetryPolicy), audit and results
// are tpcc's, which it imports; it reports through tpcc.Tally and
// tpcc.Executor's results only. It knows no other profile and nothing
// of the run's composition (tpcc/profile), and no CockroachDB release.
package pipelined
