package profile

import (
	"fmt"

	"github.com/benchrig/benchrig/tpcc"
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
		return tpcc.Pipelined(), nil
	case tpcc.ProfileFunctions:
		if err := tpcc.FunctionsRefused(p, d); err != nil {
			return nil, err
		}
		return tpcc.Functions(), nil
	}
	return nil, fmt.Errorf("unknown load profile %q", p)
}
