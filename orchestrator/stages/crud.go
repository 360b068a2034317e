package stages

import (
	"fmt"
	"strconv"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"

	"github.com/benchrig/benchrig/remote"
)

// crudWorkload is the CRUD micro-benchmark (crud/): no import (the benchmark
// creates its table), every workload host at once on its own key range,
// one JSON result per host, merged into one table.
type crudWorkload struct{ c *compiler }

// Load has nothing to do: validation keeps import out of crud plans.
func (crudWorkload) Load(*Stage) {}

// Allocate has nothing to do: validation keeps allocate out of crud plans.
func (crudWorkload) Allocate(*Stage) {}

// crudSampling bounds the host samplers of a crud run, which has no
// duration of its own: a sampler the orchestrator never stopped (it died)
// ends by itself this long after it started.
const crudSampling = plan.Duration(time.Hour)

// crudRun runs the CRUD micro-benchmark on every workload host at the
// same time, each on its own key range of the shared table, every host
// sampled meanwhile (hoststat.go).
func (w crudWorkload) Run(st *Stage) error {
	c := w.c
	p, cr := c.p, c.p.CRUD
	if c.samplesHosts() {
		c.startHostStat(st, plan.Round{}, 0, crudSampling)
		st.then()
	}
	for i, h := range p.Workload {
		args := []string{"./benchrig", "crud",
			"--goroutines", strconv.Itoa(cr.Goroutines), "--records", strconv.Itoa(cr.Records),
			"--select-repeat", strconv.Itoa(cr.SelectRepeat), "--many-repeat", strconv.Itoa(cr.ManyRepeat),
			"--table", cr.Table, "--key-offset", strconv.Itoa(i * cr.Goroutines * cr.Records),
			"--label", h.Name, "--json", crudFile(i)}
		urls := c.f.urls()
		args = append(args, urls...)
		st.add(Step{Host: h.Name, Kind: Job, What: "run crud", Positional: len(urls), CheckExit: tpccCheckExit,
			JobName: "crud", JobDir: h.Dir + "/jobs", Cmd: remote.Cmd{Dir: h.Dir, Args: withUlimit(p.TPCC.Ulimit, args)}})
	}
	if c.samplesHosts() {
		st.then()
		c.stopHostStat(st, plan.Round{})
	}
	return nil
}

// crudFile is workload host i's crud result file.
func crudFile(i int) string { return fmt.Sprintf("crud%d.json", i+1) }

// Results are each workload host's JSON result.
func (w crudWorkload) Results() []ResultFile {
	var out []ResultFile
	for i, h := range w.c.p.Workload {
		f := crudFile(i)
		out = append(out, ResultFile{Host: h, Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f})
	}
	return out
}

// Collect downloads the JSON results and every host's samples.
func (w crudWorkload) Collect(st *Stage) {
	collectFiles(st, w.Results())
	if w.c.samplesHosts() {
		collectFiles(st, HostStatFiles(w.c.p, []plan.Round{{}}))
	}
}

// Merge prints the hosts' results as one table.
func (w crudWorkload) Merge(st *Stage) {
	args := []string{"benchrig", "crud", "merge"}
	for _, f := range w.Results() {
		args = append(args, f.Local)
	}
	st.add(Step{Host: LocalHost, Kind: Local, What: "merge crud results", Cmd: remote.Cmd{Args: args}})
}
