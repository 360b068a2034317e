// Package profile is where a run's load profile is chosen: Choose turns
// the name --profile gives (or the dialect's default) into the
// tpcc.LoadProfile value tpcc.Run drives. It is the one place that knows
// every profile; the command layer (tpcc/command) and the stages' sizing
// (orchestrator/stages, through tpcc.RunNeeds) hand it to the driver as
// tpcc.RunConfig.ChooseProfile.
//
// The profiles themselves are its subpackages, each behind tpcc's small
// LoadProfile and Executor interfaces: tpcc/profile/workload, CockroachDB
// workload v20.1's statements, round trips, savepoint retries and ramp;
// tpcc/profile/pipelined, benchrig's batched transactions; and
// tpcc/profile/functions, each transaction one PL/pgSQL call. Install
// is what tpcc init adds for them beside the schema (the functions
// profile's functions), handed to tpcc.Init as InitOptions.Install.
//
// # What it must not know
//
// It holds no transaction and no SQL, and no CockroachDB release: a
// profile that differs per release asks crdb itself (only
// tpcc/profile/workload may; the orchestrator's layout test). tpcc
// imports neither this package nor any profile.
package profile
