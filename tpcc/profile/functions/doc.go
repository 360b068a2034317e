// Package functions is the functions load profile (PostgreSQL only):
// each transaction is one call of a PL/pgSQL function (functions.sql;
// the calls in one file per transaction), so a transaction costs one
// round trip whatever its steps. Install creates the functions (tpcc
// init runs it through tpcc/profile.Install), marked with a hash of
// functions.sql so that a run refuses functions of another build. Profile
// is a tpcc.LoadProfile with the spec's pacing (tpcc.SpecPacing) and the
// core's inputs and retries, as the pipelined profile has them, so the
// two run the same business transactions (its tests compare the rows
// and audit figures both leave); New refuses any dialect but PostgreSQL.
//
// # What it must not know
//
// It holds no part of the benchmark (tpcc's, which it imports), knows no
// other profile (its tests compare it with tpcc/profile/pipelined) and
// nothing of the run's composition (tpcc/profile).
package functions
