package tpcc

import "fmt"

// MERGE NOTE (branch w14): this file carries, for tpcc/needs.go (main's,
// copied unchanged), the sizing rules of this branch's Run. Main's run.go
// defines sizing and perURLConns itself (one connection per
// WaitTerminalsPerConn terminals): delete this file when merging into
// main; the compiler's "redeclared" error points here.

// sizing returns the executors (terminals or no-wait workers) and the
// connections of a run with terminals spec terminals on this host, as Run
// decides them.
func (cfg *RunConfig) sizing(terminals int, parts Partitions) (workers, conns int, err error) {
	noWait := cfg.Wait == 0
	if !noWait && cfg.Workers != 0 && cfg.Workers != terminals {
		return 0, 0, fmt.Errorf("tpcc run: --workers %d with --wait: paced runs have 10 terminals per active warehouse (%d here); use --wait=false for a chosen count", cfg.Workers, terminals)
	}
	if cfg.Workers < 0 || cfg.Conns < 0 {
		return 0, 0, fmt.Errorf("tpcc run: --workers and --conns must be >= 0, got %d and %d", cfg.Workers, cfg.Conns)
	}
	workers = terminals
	if noWait && cfg.Workers > 0 {
		workers = WorkersForHost(cfg.Version, cfg.Workers, parts, cfg.Affinity)
	}
	conns = cfg.Conns
	if conns == 0 {
		if noWait {
			conns = workers
		} else {
			conns = 2 * (terminals / 10)
		}
	}
	return workers, conns, nil
}

// perURLConns spreads conns over n URLs, rounding up: every URL gets at
// least one.
func perURLConns(conns, n int) int { return max(1, (conns+n-1)/n) }
