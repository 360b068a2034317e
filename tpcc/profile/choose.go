package profile

import (
	"context"
	"fmt"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/profile/functions"
	"github.com/benchrig/benchrig/tpcc/profile/pipelined"
	"github.com/benchrig/benchrig/tpcc/profile/workload"
)

// Choose is a tpcc.ChooseProfile over every profile: the one named p
// ("": the dialect's default) for a run of cfg on dialect d over parts.
func Choose(p tpcc.Profile, d tpcc.Dialect, cfg *tpcc.RunConfig, parts tpcc.Partitions) (tpcc.LoadProfile, error) {
	if p == "" {
		p = tpcc.DefaultProfile(d)
	}
	switch p {
	case tpcc.ProfileWorkload:
		return workload.New(d, cfg, parts), nil
	case tpcc.ProfilePipelined:
		return pipelined.Profile{}, nil
	case tpcc.ProfileFunctions:
		f, err := functions.New(d)
		if err != nil {
			return nil, err
		}
		return f, nil
	}
	return nil, fmt.Errorf("unknown load profile %q", p)
}

// Install is a tpcc.InitOptions.Install over every profile: what each
// needs in a database of dialect d beside the schema (the functions
// profile's functions, on PostgreSQL alone, where they run).
func Install(ctx context.Context, db tpcc.Execer, d tpcc.Dialect) error {
	if d != tpcc.Postgres {
		return nil
	}
	return functions.Install(ctx, db)
}
