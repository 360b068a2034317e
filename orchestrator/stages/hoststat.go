package stages

import (
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// Host metrics: while a round of the run stage runs, every database node
// and workload host runs `benchrig hoststat` (the binary install put in
// its work directory) as a detached job writing one JSON line a second to
// HostStatFile; the job is stopped after the round, collect fetches the
// files, and the report plots them and warns about a client-bound run.
// Nothing beyond the benchrig binary is installed, and the samples come
// from the host's own /proc, not over SSH, so the sampling interval holds
// however many hosts there are.

// hostStatInterval is the sampling interval.
const hostStatInterval = time.Second

// hostStatMargin bounds a sampler the orchestrator never stopped (it
// died mid-run): the job ends by itself this long after the round's
// ramp and duration, which covers the start lead and the hosts' start
// delay.
const hostStatMargin = 2 * time.Minute

// HostStatFile is the sample file of a round on every host, in the
// host's work directory and in results/<host>/ of the run directory:
// hoststat.jsonl for a single run, hoststat.<round>.jsonl otherwise.
func HostStatFile(rd plan.Round) string {
	if rd.Label == "" {
		return "hoststat.jsonl"
	}
	return "hoststat." + rd.Label + ".jsonl"
}

// sampledHosts are the hosts that sample during the run: the database
// nodes, then the workload hosts (a host named in both once).
func sampledHosts(p *plan.Plan) []plan.Host {
	seen := map[string]bool{}
	var out []plan.Host
	for _, h := range append(append([]plan.Host(nil), p.Nodes...), p.Workload...) {
		if !seen[h.Name] {
			seen[h.Name] = true
			out = append(out, h)
		}
	}
	return out
}

// hostStatJob is the sampler's job name in a round.
func hostStatJob(rd plan.Round) string {
	if rd.Label == "" {
		return "hoststat"
	}
	return "hoststat-" + rd.Label
}

// startHostStat adds, for every sampled host, the removal of an earlier
// run's file and the sampler's start as a detached job bounded by the
// round's ramp + duration + hostStatMargin.
func (c *compiler) startHostStat(st *Stage, rd plan.Round, ramp, duration plan.Duration) {
	bound := plan.Duration(time.Duration(ramp) + time.Duration(duration) + hostStatMargin)
	file := HostStatFile(rd)
	for _, h := range sampledHosts(c.p) {
		st.add(
			Step{Host: h.Name, Kind: Exec, What: "remove old host samples " + file, Idempotent: true,
				Cmd: remote.Cmd{Dir: h.Dir, Args: []string{"rm", "-f", "--", file}}},
			Step{Host: h.Name, Kind: Job, JobMode: JobDetach, What: "start host sampling " + file,
				JobName: hostStatJob(rd), JobDir: h.Dir + "/jobs",
				Cmd: remote.Cmd{Dir: h.Dir, Args: []string{"./benchrig", "hoststat",
					"--interval", plan.Duration(hostStatInterval).String(), "--duration", bound.String(),
					"--host", h.Name, "--out", file}}})
	}
}

// stopHostStat stops every host's sampler of the round.
func (c *compiler) stopHostStat(st *Stage, rd plan.Round) {
	for _, h := range sampledHosts(c.p) {
		st.add(Step{Host: h.Name, Kind: Job, JobMode: JobStop, What: "stop host sampling " + HostStatFile(rd),
			JobName: hostStatJob(rd), JobDir: h.Dir + "/jobs"})
	}
}

// HostStatFiles are the sample files collect fetches: every sampled
// host's file of every round.
func HostStatFiles(p *plan.Plan, rounds []plan.Round) []ResultFile {
	var out []ResultFile
	for _, rd := range rounds {
		for _, h := range sampledHosts(p) {
			f := HostStatFile(rd)
			out = append(out, ResultFile{Host: h, Round: rd, Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f})
		}
	}
	return out
}
