package tpcc

import (
	"fmt"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

// HostNeeds is what one workload host needs of its operating system to run
// a configuration: the database connections it opens and the open-files
// limit (ulimit -n) that takes. The recipes raise the limit by hand
// (`ulimit -n 200500`); preflight compares the host's limit with
// OpenFiles instead.
type HostNeeds struct {
	Terminals int // emulated terminals (wait mode) or workers (no wait)
	Conns     int // connections over all URLs, as Run opens them
	OpenFiles int // Conns plus fdReserve
}

// fdReserve covers the descriptors a run holds besides its connections:
// stdio, the --histograms and --result files, the runtime's epoll and
// eventfd, the executable, and connections being replaced after an error.
const fdReserve = 64

// RunNeeds computes HostNeeds from a run configuration, without
// connecting: a pure function of the configuration, for preflight to call
// with a plan's parameters. It applies Run's defaults (connections per
// terminal, the per-URL rounding) and rejects what Run would reject.
func RunNeeds(cfg RunConfig) (HostNeeds, error) {
	if len(cfg.URLs) == 0 {
		cfg.URLs = []string{""} // the count matters here, not the URL
	}
	if cfg.Duration == 0 {
		cfg.Duration = 1 // only validated, never waited for
	}
	if err := cfg.defaults(); err != nil {
		return HostNeeds{}, err
	}
	parts, err := NewPartitions(cfg.Warehouses, cfg.ActiveWarehouses, cfg.Partitions)
	if err != nil {
		return HostNeeds{}, fmt.Errorf("tpcc run: %w", err)
	}
	terminals, err := runspec.HostTerminals(parts, cfg.Affinity)
	if err != nil {
		return HostNeeds{}, err
	}
	// Without a connection the dialect is unknown: an unset profile is
	// taken as PostgreSQL's default; callers for CockroachDB pass theirs.
	prof, err := cfg.profileFor(Postgres, parts)
	if err != nil {
		return HostNeeds{}, err
	}
	workers, conns, err := cfg.sizing(terminals, parts, prof)
	if err != nil {
		return HostNeeds{}, err
	}
	perURL := perURLConns(conns, len(cfg.URLs))
	total := perURL * len(cfg.URLs)
	return HostNeeds{Terminals: workers, Conns: total, OpenFiles: total + fdReserve}, nil
}
