// Package hostmetrics samples a Linux host's CPU (user, system, iowait,
// steal, ...), memory, disks and network from /proc (read through
// github.com/prometheus/procfs) at a fixed interval and writes one JSON
// line per sample (schema "benchrig.hoststat/v1"); it
// reads those lines back, finds a client-bound run (a workload host's CPU
// saturated while the database hosts' is not: the driver, not the
// database, then limits the result), and plots each host.
//
// It needs no agent: `benchrig hoststat`, the binary already uploaded to
// every host, runs the sampler for the duration of the run stage.
package hostmetrics
