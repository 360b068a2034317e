package orchestrator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc"
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

// SearchPoint is one tried value and its verdict.
type SearchPoint struct {
	Value int  `json:"value"`
	Pass  bool `json:"pass"`
}

// searchStage is what the Runner needs to drive a search: the bounds and
// the steps of one iteration. An iteration's last step is a merge with
// --check whose exit status is the verdict.
type searchStage struct {
	Search
	iteration func(value int) []Step
}

// next returns the value to try after the verdicts so far, and false when
// the search is over. It bisects: every value at or below a pass is taken
// to pass, every value at or above a failure to fail.
func (s *searchStage) next(points []SearchPoint) (int, bool) {
	lo, hi := s.Min, s.Max
	for _, pt := range points {
		if pt.Pass {
			lo = max(lo, pt.Value+1)
		} else {
			hi = min(hi, pt.Value-1)
		}
	}
	if lo > hi || (len(points) > 0 && hi-lo+1 < max(1, s.Resolution)) {
		return 0, false
	}
	return lo + (hi-lo+1)/2, true
}

// best is the largest passing value, or 0.
func bestPassing(points []SearchPoint) int {
	best := 0
	for _, pt := range points {
		if pt.Pass {
			best = max(best, pt.Value)
		}
	}
	return best
}

// SearchLabel names a search iteration's files and jobs.
func SearchLabel(value int) string { return "search-" + strconv.Itoa(value) }

// searchRun compiles the run stage of a plan with tpcc.search.
func (c *compiler) searchRun(st *Stage) {
	p := c.p
	sr := *p.TPCC.Search
	st.Notes = append(st.Notes, fmt.Sprintf("line search for the largest passing --active-warehouses in %d..%d (resolution %d); each iteration runs, collects, merges and checks; a dry run shows the path taken if every iteration passes", sr.Min, sr.Max, max(1, sr.Resolution)))
	st.search = &searchStage{Search: sr, iteration: func(v int) []Step {
		rd := Round{Label: SearchLabel(v), Flag: "active-warehouses", Value: v, Repeat: 1}
		var it Stage
		c.runRound(&it, "run", p.TPCC.Ramp, p.TPCC.Duration, true, rd)
		it.then()
		args := []string{"benchrig", "tpcc", "merge", "--check", "--warehouses", strconv.Itoa(v), "--json", "results/" + tpcc.MergedFile(rd.Label)}
		for i, h := range p.Workload {
			hf := HistogramFile(p, i, rd)
			for _, f := range []string{hf, tpcc.ResultFileFor(hf)} {
				it.add(Step{Host: h.Name, Kind: Get, What: "download " + f,
					Transfer: remote.Transfer{Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f}})
			}
			args = append(args, "results/"+h.Name+"/"+hf)
		}
		it.then()
		it.add(Step{Host: LocalHost, Kind: Local, What: strings.TrimSpace("check " + rd.Label), Verdict: true, CheckExit: tpccCheckExit,
			Cmd: remote.Cmd{Args: args}})
		return it.Steps
	}}
}
