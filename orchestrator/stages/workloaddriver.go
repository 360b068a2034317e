package stages

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
)

// driver: workload runs the recipes' own commands with CockroachDB's
// workload: by default the cluster's own binary (`./cockroach workload
// ...`, the database archive installed on every workload host too, as
// roachtest runs TPC-C), so that the generator the IMPORT names is the
// one every node builds in; or a separate workload binary when the plan
// gives binaries.workload (sha256-checked). fixtures import, the short
// partitioning run, the allocation and the measured run with
// --partition-affinity and --histograms over the addrs file.
// benchrig still installs it, starts the runs at one instant, collects
// the histograms and merges them (`benchrig tpcc merge` reads workload's
// ndjson). Every plan value is an argument; the addrs file is written
// from arguments and read by a constant script, as the recipe's
// $(cat addrs).

// workloadURL is the recipe's connection string, without a database
// (workload adds its --db): postgres://root@<addr>:26257?sslmode=disable.
func workloadURL(h plan.Host) string {
	u := url.URL{Scheme: "postgres", User: url.User("root"), Host: net.JoinHostPort(h.Addr, strconv.Itoa(h.SQLPort)),
		RawQuery: sslDisable.Encode()}
	return u.String()
}

// addrsFile is the recipe's addrs file in a workload host's directory.
const addrsFile = "addrs"

// writeAddrsScript writes its arguments, one per line, to the file named
// by its first: the recipe's addrs file, from values that never become
// shell text.
const writeAddrsScript = `f=$1; shift
printf '%s\n' "$@" > "$f"`

// workloadRunScript is `ulimit -n N && ./workload run tpcc ... $(cat
// addrs)`: $1 is the open-files limit ("" for none), $2 the addrs file,
// $3 a file to keep workload's output in ("" for none: the job's log has
// it too), the rest workload's argv. When the runner starts the hosts
// together it puts --start-at=<instant> first; the script sleeps until
// then. Globbing is off, so the URLs read from the file are words, never
// patterns. With an output file workload's exit status is kept in
// <file>.exit and is the script's.
const workloadRunScript = `set -f
at=
case $1 in --start-at=*) at=${1#--start-at=}; shift;; esac
if [ -n "$1" ]; then ulimit -n "$1" || exit; fi
addrs=$2; out=$3; shift 3
if [ -n "$at" ]; then
  t=$(date -d "$at" +%s.%N) || exit
  d=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { d = a - b; if (d < 0) d = 0; printf "%.3f", d }')
  sleep "$d"
fi
if [ -z "$out" ]; then exec "$@" $(cat -- "$addrs"); fi
rm -f -- "$out.exit"
{ "$@" $(cat -- "$addrs") 2>&1; echo "$?" > "$out.exit"; } | tee -- "$out"
read -r s < "$out.exit" || exit
exit "$s"`

func init() {
	scriptNames[writeAddrsScript] = "write-addrs"
	scriptNames[workloadRunScript] = "workload-run"
}

// workloadBinary is the file workload runs from on a workload host:
// binaries.workload when the plan gives one, else the cluster's own
// cockroach binary (every release since v19.1 has `cockroach workload`;
// v20.1's includes fixtures import through its CCL init hooks).
//
// fidelity:v20.1/S61
//
// fidelity:v25.4/17
func workloadBinary(p *plan.Plan) (b plan.Binary, file string) {
	if p.Binaries.Workload != nil {
		return *p.Binaries.Workload, "workload"
	}
	return p.Binaries.Database, "cockroach"
}

// workloadCommand is the argv of a workload subcommand: `./workload
// run ...` or `./cockroach workload run ...`.
func workloadCommand(p *plan.Plan, sub ...string) []string {
	if _, file := workloadBinary(p); file == "cockroach" {
		return append([]string{"./cockroach", "workload"}, sub...)
	}
	return append([]string{"./workload"}, sub...)
}

// workloadInstall puts the workload binary (or the cluster's cockroach)
// and the addrs file (every node's URL, in node order) on workload host h.
func (c *compiler) workloadInstall(st *Stage, h plan.Host) {
	b, file := workloadBinary(c.p)
	st.add(installBinary(h, b, h.Dir+"/"+file, false)...)
	args := []string{"sh", "-c", writeAddrsScript, "sh", h.Dir + "/" + addrsFile}
	order := make([]int, len(c.p.Nodes))
	for i := range order {
		order[i] = i
	}
	if cf, ok := c.f.(cockroachFlavor); ok {
		order = cf.runOrder(h) // per host from v25.1 (crdb_affinity.go)
	}
	for _, i := range order {
		args = append(args, workloadURL(c.p.Nodes[i]))
	}
	st.add(Step{Host: h.Name, Kind: Exec, What: "write the addrs file", Cmd: remote.Cmd{Args: args}})
}

// workloadImport is the recipe's `./workload fixtures import tpcc
// --warehouses W "<url of any node>"` from the first workload host.
//
// fidelity:v20.1/S15
//
// fidelity:v25.4/16 fidelity:v25.4/21
func (f cockroachFlavor) workloadImport(st *Stage) {
	p := f.p
	t := p.TPCC
	h := p.Workload[0]
	args := workloadCommand(p, "fixtures", "import", "tpcc")
	partitionHere := t.Partitions > 1 && !slices.Contains(p.Stages, "partition")
	if partitionHere {
		args = append(args, "--partitions", strconv.Itoa(t.Partitions))
		args = append(args, f.partitionFlags()...)
	}
	args = append(args, "--warehouses", strconv.Itoa(t.Warehouses))
	if t.Database != "tpcc" {
		args = append(args, "--db", t.Database)
	}
	if t.Import.FilesPerNode > 1 {
		args = append(args, "--files-per-node", strconv.Itoa(t.Import.FilesPerNode))
	}
	args = append(args, workloadURL(p.Nodes[0]))
	st.add(Step{Host: h.Name, Kind: Job, What: strings.Join(args[1:], " "), JobName: "import", JobDir: h.Dir + "/jobs",
		Cmd: remote.Cmd{Dir: h.Dir, Args: args}, Shows: f.importShows(partitionHere)})
	if partitionHere {
		// The import partitioned: the recipe waits for up-replication
		// and partitioning before it runs.
		st.then()
		f.waitReplicated(st)
	}
}

// workloadInit is the 10-warehouse recipe's `cockroach workload init
// tpcc --warehouses=10 <url>` (import.method: init) from the first
// workload host: workload's INSERT loader, the default --data-loader,
// which generates the rows on the client (after the generator's Validate,
// so C_LAST with the seed's C-Load) and inserts them; no IMPORT and no
// injected statistics.
//
// fidelity:v20.1/S73
func (f cockroachFlavor) workloadInit(st *Stage) {
	p := f.p
	t := p.TPCC
	h := p.Workload[0]
	args := workloadCommand(p, "init", "tpcc", "--warehouses", strconv.Itoa(t.Warehouses))
	if t.Database != "tpcc" {
		args = append(args, "--db", t.Database)
	}
	args = append(args, workloadURL(p.Nodes[0]))
	st.add(Step{Host: h.Name, Kind: Job, What: "load the TPC-C tables (workload init: INSERTs from this host)", JobName: "import",
		JobDir: h.Dir + "/jobs", Cmd: remote.Cmd{Dir: h.Dir, Args: args},
		Shows: "-- workload's INSERT loader: the rows are generated here, after the generator's Validate (C_LAST with the seed's C-Load), and inserted; no IMPORT, no injected statistics"})
}

// workloadPartition is the recipe's short partitioning run. workload
// never judges it (its PostRun prints the figures and returns nil), so
// only its exit status counts.
//
// fidelity:v20.1/S60
func (f cockroachFlavor) workloadPartition(st *Stage) {
	p := f.p
	t := p.TPCC
	h := p.Workload[0]
	args := append(workloadCommand(p, "run", "tpcc"), "--partitions", strconv.Itoa(t.Partitions))
	args = append(args, f.partitionFlags()...)
	args = append(args, "--warehouses", strconv.Itoa(t.Warehouses), "--duration", t.PartitionRun.String(), "--ramp", "1ms")
	for _, n := range p.Nodes {
		args = append(args, workloadURL(n))
	}
	st.add(Step{Host: h.Name, Kind: Job, What: "partition the tables (workload run; " + notJudged + ")", JobName: "partition", JobDir: h.Dir + "/jobs",
		Cmd: remote.Cmd{Dir: h.Dir, Args: withUlimit(t.Ulimit, args)}, Positional: len(p.Nodes),
		Shows: "-- " + notJudged + " (workload prints its figures, exits 0)\n-- " + partitionURLsNote + "\n" + f.partitionShows()})
}

// partitionURLsNote says why the partitioning run names every node where
// the recipe names one. The partitioning itself takes one connection
// (workload v20.1 partitions in Ops before it opens a pool:
// pkg/workload/tpcc/tpcc.go:585 at 0cb10f369aa9, partitionAndScatter
// over a single database/sql handle), but the short run after it opens
// workload's whole --conns, 2 per warehouse (tpcc.go:278), split evenly
// over the URLs (tpcc.go:604). On one URL that is 200,000 connections
// from one host to one ip:port at 100,000 warehouses, where a source
// address has one local port per connection to a destination: 28,232
// with Linux's default net.ipv4.ip_local_port_range (32768-60999), so
// the step would fail after the import with "cannot assign requested
// address". Over every node's URL it is 2,470 per node; preflight checks
// every host's count per destination against its range.
//
// fidelity:v20.1/D32
const partitionURLsNote = "every node's URL, where the recipe names one: the short run's connections spread over the nodes (one ip:port takes at most one connection per local port of the workload host)"

// workloadRunStep is one host's allocation or measured run: args is
// workload's argv without the URLs, which come from the addrs file; out,
// when not "", keeps workload's output (relative to h.Dir).
func workloadRunStep(p *plan.Plan, h plan.Host, what, job string, startAt bool, out string, args []string) Step {
	ulimit := ""
	if p.TPCC.Ulimit > 0 {
		ulimit = strconv.Itoa(p.TPCC.Ulimit)
	}
	head := []string{"sh", "-c", workloadRunScript, "sh"}
	// The job runs in h.Dir, where install wrote the addrs file.
	cmd := append(append(head, ulimit, addrsFile, out), args...)
	// workload's exit status says only whether it ran (no audit verdict
	// code as benchrig's 30), so CheckExit stays unset.
	return Step{Host: h.Name, Kind: Job, What: what, JobName: job, JobDir: h.Dir + "/jobs",
		StartAt: startAt,
		// Everything after the script's $0 counts as positional, so the
		// runner's --start-at lands first, where the script looks.
		Positional: len(cmd) - len(head),
		Cmd:        remote.Cmd{Dir: h.Dir, Args: cmd},
		Shows:      "-- as the recipe: " + RecipeLine(p.TPCC.Ulimit, args) + workloadStartNote(startAt),
	}
}

// workloadStartNote says how far workload's common start holds: the
// runner's --start-at makes every host exec workload at one instant, but
// workload opens and warms its connections after that (NewMultiConnPool
// in Ops: pkg/workload/pgx_helpers.go:94 at 0cb10f369aa9) and has no
// ready barrier to wait at, so each host's ramp begins when its own
// warm-up ends.
func workloadStartNote(startAt bool) string {
	if !startAt {
		return ""
	}
	return "\n-- starts at one instant, then warms up: workload has no ready barrier, so each host's ramp begins after its own warm-up"
}

// notJudged is how the partitioning run's step says it has no verdict.
const notJudged = "not judged: partitions the tables, as workload's own short run"

// RecipeLine is the recipe's shell line for a workload run: `ulimit -n N
// && ./workload run tpcc ... $(cat addrs)`.
func RecipeLine(ulimit int, args []string) string {
	var b strings.Builder
	if ulimit > 0 {
		b.WriteString("ulimit -n " + strconv.Itoa(ulimit) + " && ")
	}
	b.WriteString(remote.ShellJoin(remote.Cmd{Args: args}))
	b.WriteString(" $(cat " + addrsFile + ")")
	return b.String()
}
