package runspec

import (
	"fmt"
	"time"
)

// Run is the shape of one host's `benchrig tpcc run`, as a plan's
// validation knows it before anything is installed: what the driver
// refuses of a run before it connects depends on these fields only.
type Run struct {
	Warehouses, Active, Partitions int
	Affinity                       []int // this host's partitions (nil: all)
	Workers, Conns                 int
	Wait                           float64
	Duration                       time.Duration // 0: not checked
}

// Check is what the driver (tpcc.RunNeeds, tpcc.Run) refuses of r before
// it connects, with the driver's own messages: a plan's validation asks
// it so that a run the run stage would fail on, after hours of import, is
// refused first. Warehouses must be >= 1.
func Check(r Run) error {
	if r.Duration < 0 {
		return fmt.Errorf("tpcc run: --duration must be > 0, got %v", r.Duration)
	}
	if r.Active == 0 {
		r.Active = r.Warehouses
	}
	if r.Partitions == 0 {
		r.Partitions = 1
	}
	parts, err := NewPartitions(r.Warehouses, r.Active, r.Partitions)
	if err != nil {
		return fmt.Errorf("tpcc run: %w", err)
	}
	terminals, err := HostTerminals(parts, r.Affinity)
	if err != nil {
		return err
	}
	return CheckWorkers(r.Wait, r.Workers, r.Conns, terminals)
}

// HostTerminals is the number of spec terminals (10 per active warehouse
// of this host's partitions, clause 4.2.2) without building the plan.
func HostTerminals(parts Partitions, affinity []int) (int, error) {
	aff := affinity
	if len(aff) == 0 {
		for i := range parts.Count {
			aff = append(aff, i)
		}
	}
	n := 0
	for _, part := range aff {
		if part < 0 || part >= parts.Count {
			return 0, fmt.Errorf("tpcc run: partition affinity %d outside 0..%d", part, parts.Count-1)
		}
		lo, hi := parts.ActiveRange(part)
		n += 10 * (hi - lo + 1)
	}
	if n == 0 {
		return 0, fmt.Errorf("tpcc run: no active warehouse in this host's partitions")
	}
	return n, nil
}

// CheckWorkers is the driver's check of --workers and --conns for a run
// with terminals spec terminals on this host.
func CheckWorkers(wait float64, workers, conns, terminals int) error {
	if wait != 0 && workers != 0 && workers != terminals {
		// Paced terminals are the spec's 10 per warehouse; a different
		// count would change the offered load silently.
		return fmt.Errorf("tpcc run: --workers %d with --wait: paced runs have 10 terminals per active warehouse (%d here); use --wait=false for a chosen count", workers, terminals)
	}
	if workers < 0 || conns < 0 {
		return fmt.Errorf("tpcc run: --workers and --conns must be >= 0, got %d and %d", workers, conns)
	}
	return nil
}
