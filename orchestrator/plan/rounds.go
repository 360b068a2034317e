package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/tpcc/runspec"
)

// Search is tpcc.search: a line search, like CockroachDB's tpccbench, for
// the largest number of active warehouses at which a run passes
// (efficiency >= 85 % and every 90th percentile within its limit).
type Search struct {
	Min int `yaml:"min"`
	Max int `yaml:"max"`
	// Resolution ends the search once the values still in doubt span
	// fewer than this many warehouses.
	Resolution int `yaml:"resolution"`
}

// Round is one measured run of the run stage: the only one, one of
// tpcc.repeat, or one point of tpcc.sweep (each repeated).
type Round struct {
	Label  string // "" for a single run; "r2", "workers-40", "workers-40.r2"
	Flag   string // the swept flag, "" without a sweep
	Value  int    // its value
	Repeat int    // 1-based
}

// Rounds lists the run stage's rounds in order.
func (p *Plan) Rounds() []Round {
	t := p.TPCC
	reps := max(1, t.Repeat)
	values := []int{0}
	if t.Sweep != nil {
		values = t.Sweep.Values
	}
	var out []Round
	for _, v := range values {
		for r := 1; r <= reps; r++ {
			rd := Round{Repeat: r, Value: v}
			var parts []string
			if t.Sweep != nil {
				rd.Flag = t.Sweep.Flag
				parts = append(parts, fmt.Sprintf("%s-%d", t.Sweep.Flag, v))
			}
			if reps > 1 {
				parts = append(parts, fmt.Sprintf("r%d", r))
			}
			rd.Label = strings.Join(parts, ".")
			out = append(out, rd)
		}
	}
	return out
}

// ActiveWarehouses is the round's --active-warehouses.
func (rd Round) ActiveWarehouses(p *Plan) int {
	if rd.Flag == "active-warehouses" {
		return rd.Value
	}
	if p.TPCC.ActiveWarehouses > 0 {
		return p.TPCC.ActiveWarehouses
	}
	return p.TPCC.Warehouses
}

// Workers is the round's --workers (0: the driver's default).
func (rd Round) Workers(p *Plan) int {
	if rd.Flag == "workers" {
		return rd.Value
	}
	return p.TPCC.Workers
}

// HistogramFile is workload host i's histogram file name in a round: the
// recipe's workload<n>.histogram.ndjson (.histogram.json from v24.3), with the round's label before
// the extension when there are several rounds.
func HistogramFile(p *Plan, i int, rd Round) string {
	f := strings.ReplaceAll(p.TPCC.Histograms, "{n}", strconv.Itoa(i+1))
	if rd.Label == "" {
		return f
	}
	if base, suffix, ok := runspec.HistogramStem(f); ok {
		return base + "." + rd.Label + suffix
	}
	return f + "." + rd.Label
}

// SearchLabel names a search iteration's files and jobs.
func SearchLabel(value int) string { return "search-" + strconv.Itoa(value) }
