// Package probe holds the results of the probes the orchestrator itself
// runs on hosts, as benchrig.result/v1 files: the preflight disk
// benchmark (kind "fio", one file per host, results/<host>/fio.json) and
// the clock probes taken before each measured run (kind "clock", one file
// per run, clock.json). The report reads these files; the code that runs
// the probes fills them with FioFromKV and NewClockHost, so the
// arithmetic lives here, once.
package probe
