package runspec

import "fmt"

// Profile names a load profile: which SQL the terminals send, how many
// connections carry it, how a run ramps up and how transactions retry.
// It is chosen once per run (RunConfig.Profile) and reaches the run as a
// tpcc.LoadProfile value (tpcc/profile.Choose); the result, report and
// dry-run name it.
type Profile string

const (
	// ProfilePipelined is benchrig's own load: each transaction in as few
	// round trips as its dependencies allow (New-Order in 2), retries as
	// a fresh transaction with capped backoff, one connection per 40
	// terminals, terminals starting over their first keying time. The
	// default on PostgreSQL.
	ProfilePipelined Profile = "pipelined"
	// ProfileWorkload is CockroachDB workload's load (v20.1,
	// docs/fidelity/v20.1.md): its statements in its order and round
	// trips (New-Order in 15), retries under SAVEPOINT cockroach_restart
	// without a limit, 2 connections per active warehouse of the whole
	// run on every host, warmed before the run, workers starting
	// linearly over --ramp, and its NURand constants. The default on
	// CockroachDB.
	ProfileWorkload Profile = "workload"
	// ProfileFunctions is each transaction as one round trip: one call of
	// a PL/pgSQL function that `tpcc init` installs (tpcc/functions.sql,
	// set-oriented), as HammerDB and most published TPC-C results run
	// PostgreSQL; sizing, ramp and retries as the pipelined profile's.
	// PostgreSQL only.
	ProfileFunctions Profile = "functions"
)

// Profiles are the valid --profile values.
var Profiles = []Profile{ProfileWorkload, ProfilePipelined, ProfileFunctions}

// ParseProfile parses --profile; "" means the dialect's default.
func ParseProfile(s string) (Profile, error) {
	if s == "" {
		return "", nil
	}
	for _, p := range Profiles {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown load profile %q (want %s, %s or %s)", s, ProfileWorkload, ProfilePipelined, ProfileFunctions)
}
