package stages

import (
	"fmt"
	"path"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// Workload is what a benchmark contributes to a plan's stages: loading its
// data, the allocation run, the measured run, fetching its result files and
// merging them. Compile asks the plan's workload and never which benchmark
// it is; a new benchmark is a new implementation, found by workloadFor.
// Each method adds its steps (or a note saying why there are none) to st.
type Workload interface {
	Load(st *Stage)
	Allocate(st *Stage)
	Run(st *Stage) error
	Collect(st *Stage)
	Merge(st *Stage)
	// Results are the files the run leaves on the workload hosts, as
	// collect fetches them into the run directory.
	Results() []ResultFile
}

// ResultFile is one result file of one workload host.
type ResultFile struct {
	Host   plan.Host
	Round  plan.Round // the round it measured (zero for crud)
	Remote string     // path on the host
	Local  string     // path in the run directory
}

// workloadFor is the one place that reads plan.Benchmark: tpcc (with
// repeats and sweeps as rounds), a tpcc line search, or crud.
func workloadFor(c *compiler) (Workload, error) {
	switch {
	case c.p.Benchmark == "crud":
		return crudWorkload{c}, nil
	case c.p.Benchmark != "" && c.p.Benchmark != "tpcc":
		return nil, fmt.Errorf("benchmark %q: no such workload", c.p.Benchmark)
	case c.p.TPCC.Search != nil:
		return searchWorkload{tpccWorkload{c}}, nil
	}
	return tpccWorkload{c}, nil
}

// collectFiles adds a download of each result file.
func collectFiles(st *Stage, files []ResultFile) {
	for _, f := range files {
		st.add(Step{Host: f.Host.Name, Kind: Get, What: "download " + path.Base(f.Remote),
			Transfer: remote.Transfer{Remote: f.Remote, Local: f.Local, MaxBytes: CollectMaxBytes, Timeout: CollectTimeout}})
	}
}

// The bounds of a file collected from a host, which may be hostile. The
// largest honest one is the histogram file of a 30-minute measured run
// (the 100k recipe): one ndjson line of about 1 kB per transaction type
// per second, 5 types × 1800 s ≈ 10 MB (its ticks file about 2 MB, the
// host samples less). 64 MiB is six times that; at the 10-minute bound
// it is sent at 110 kB/s. 86 hosts' files stay under 17 GiB in the worst
// case, a host's under 200 MiB a round.
const (
	CollectMaxBytes = 64 << 20
	CollectTimeout  = 10 * time.Minute
)
