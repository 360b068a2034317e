package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"fmt"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/result"
)

// SearchPoint is one tried value and its verdict.
type SearchPoint struct {
	Value int  `json:"value"`
	Pass  bool `json:"pass"`
}

// Search is a line search stage as data: the bounds, and the steps of one
// iteration with the tried value written as SearchValue. The runner picks
// the values (Next), makes each iteration's steps (Steps) and reads the
// verdict from the iteration's Verdict step: a merge with --check whose
// exit status is the pass or fail.
type Search struct {
	// Flag is the tpcc run flag searched ("active-warehouses").
	Flag                 string
	Min, Max, Resolution int
	Iteration            []Step
}

// SearchValue stands for the tried value in a search's Iteration steps:
// in arguments, paths, job names and descriptions. Compile refuses plan
// values that contain it.
const SearchValue = "{value}"

// Steps returns the steps of the iteration that tries v.
func (s *Search) Steps(v int) []Step {
	val := strconv.Itoa(v)
	sub := func(x string) string { return strings.ReplaceAll(x, SearchValue, val) }
	out := make([]Step, len(s.Iteration))
	for i, st := range s.Iteration {
		st.What, st.JobName = sub(st.What), sub(st.JobName)
		st.Cmd.Args = append([]string(nil), st.Cmd.Args...)
		for k := range st.Cmd.Args {
			st.Cmd.Args[k] = sub(st.Cmd.Args[k])
		}
		st.Transfer.Local, st.Transfer.Remote = sub(st.Transfer.Local), sub(st.Transfer.Remote)
		out[i] = st
	}
	return out
}

func (s *Search) Next(points []SearchPoint) (int, bool) {
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

// BestPassing is the largest passing value, or 0.
func BestPassing(points []SearchPoint) int {
	best := 0
	for _, pt := range points {
		if pt.Pass {
			best = max(best, pt.Value)
		}
	}
	return best
}

// searchWorkload is TPC-C with tpcc.search: the run stage is a line
// search whose iterations run, collect, merge and check, so collect and
// merge have nothing left to do.
type searchWorkload struct{ tpccWorkload }

// Collect: each iteration collected its own histograms.
func (searchWorkload) Collect(st *Stage) {
	st.Notes = append(st.Notes, "the search collected each iteration's histograms")
}

// Merge: each iteration merged and checked its own histograms.
func (searchWorkload) Merge(st *Stage) {
	st.Notes = append(st.Notes, "the search merged and checked each iteration")
}

// Results: a search's files depend on the values it tries.
func (searchWorkload) Results() []ResultFile { return nil }

// Run compiles the run stage as a line search.
func (w searchWorkload) Run(st *Stage) error {
	c, p := w.c, w.c.p
	// A plan value holding the placeholder would have the tried value
	// written into it.
	vals := append([]string{p.TPCC.Histograms, p.TPCC.Database}, p.TPCC.Extra...)
	for _, h := range append(append([]plan.Host(nil), p.Nodes...), p.Workload...) {
		vals = append(vals, h.Dir, h.User)
	}
	for _, v := range vals {
		if strings.Contains(v, SearchValue) {
			return fmt.Errorf("tpcc.search: the plan value %q holds %s, which stands for the tried value in a search", v, SearchValue)
		}
	}
	sr := *p.TPCC.Search
	st.Notes = append(st.Notes, fmt.Sprintf("line search for the largest passing --active-warehouses in %d..%d (resolution %d); each iteration runs, collects, merges and checks; a dry run shows the path taken if every iteration passes", sr.Min, sr.Max, max(1, sr.Resolution)))
	// The iteration is compiled once, for the placeholder value: the
	// label and the --active-warehouses and --warehouses numbers are the
	// only places it appears.
	rd := plan.Round{Label: strings.TrimSuffix(plan.SearchLabel(0), "0") + SearchValue, Flag: "active-warehouses", Repeat: 1}
	var it Stage
	c.template = true
	defer func() { c.template = false }()
	c.runRound(&it, "run", p.TPCC.Ramp, p.TPCC.Duration, true, rd)
	it.then()
	args := []string{"benchrig", "tpcc", "merge", "--check", "--warehouses", SearchValue, "--json", "results/" + result.MergedFile(rd.Label)}
	for i, h := range p.Workload {
		hf := plan.HistogramFile(p, i, rd)
		for _, f := range []string{hf, result.ResultFileFor(hf)} {
			it.add(Step{Host: h.Name, Kind: Get, What: "download " + f,
				Transfer: remote.Transfer{Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f}})
		}
		args = append(args, "results/"+h.Name+"/"+hf)
	}
	it.then()
	it.add(Step{Host: LocalHost, Kind: Local, What: strings.TrimSpace("check " + rd.Label), Verdict: true, CheckExit: tpccCheckExit,
		Cmd: remote.Cmd{Args: args}})
	st.Search = &Search{Flag: "active-warehouses", Min: sr.Min, Max: sr.Max, Resolution: sr.Resolution, Iteration: it.Steps}
	return nil
}
