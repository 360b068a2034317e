package stages

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/crdb/fixtures"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc"
)

// cockroachFlavor emits the commands and SQL of CockroachDB's published
// TPC-C recipes (v19.2/v20.1 documentation), with each host's values.
type cockroachFlavor struct{ p *plan.Plan }

func (f cockroachFlavor) bin() string { return f.p.Binaries.InstallPath }

// sudo prefixes args with `sudo -n` when the plan asks for it.
func (f cockroachFlavor) sudo(args ...string) []string {
	if f.p.SSH.Sudo {
		return append([]string{"sudo", "-n"}, args...)
	}
	return args
}

func (f cockroachFlavor) installNode(st *Stage, h plan.Host) {
	b := f.p.Binaries.Database
	if b.Path != "" && f.p.SSH.Sudo {
		// SFTP writes as the login user; stage the file in the work
		// directory, then install it with sudo.
		tmp := h.Dir + "/cockroach.upload"
		st.add(installBinary(h, b, tmp, false)...)
		st.add(Step{Host: h.Name, Kind: Exec, What: "install cockroach",
			Cmd: remote.Cmd{Args: f.sudo("install", "-m", "0755", "--", tmp, f.bin())}})
		return
	}
	st.add(installBinary(h, b, f.bin(), f.p.SSH.Sudo)...)
}

// hostPort is the address other nodes and clients use for node h.
func hostPort(h plan.Host) string {
	if h.ListenSet {
		return h.Addr + ":" + strconv.Itoa(h.SQLPort)
	}
	return h.Addr
}

// join is the recipes' --join list: the first three nodes.
func (f cockroachFlavor) join() string {
	var addrs []string
	for _, h := range f.p.Nodes[:min(3, len(f.p.Nodes))] {
		addrs = append(addrs, hostPort(h))
	}
	return strings.Join(addrs, ",")
}

// startArgs is the recipe's start command for node h.
//
// fidelity:v20.1/S69
//
// fidelity:v25.4/3 fidelity:v25.4/4
func (f cockroachFlavor) startArgs(h plan.Host) []string {
	args := []string{f.bin(), "start", "--insecure"}
	if h.Store != "" {
		args = append(args, "--store="+h.Store)
	}
	if h.ListenSet {
		// Several nodes on one machine (the 10-warehouse recipe).
		args = append(args, "--listen-addr="+hostPort(h), "--http-addr="+h.Addr+":"+strconv.Itoa(h.HTTPPort))
	} else {
		args = append(args, "--advertise-addr="+h.Addr)
	}
	args = append(args, "--join="+f.join())
	args = append(args, f.p.Start.Flags...)
	if h.Rack >= 0 {
		args = append(args, "--locality=rack="+strconv.Itoa(h.Rack))
	}
	args = append(args, releaseOf(f.p).logFlags(h)...)
	return append(args, "--background")
}

// crdbStartScript starts a node unless the pid file names a live
// process: a resumed start stage must not start a second copy. The recipe's
// start command follows the pid file as "$@", with --pid-file added. It
// first raises the soft open-files limit to the hard one, as the recipes'
// machines have it (soft and hard 1,048,576 on the published run's):
// the node itself raises a lower soft limit only to its recommendation
// (15,000 on v20.1, crdb.Resources), which the 100k recipe's connections
// and store outgrow. Preflight reads the limit this gives (nofile_start).
const crdbStartScript = `pidf=$1; shift
if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then echo "already running as pid $(cat "$pidf")"; exit 0; fi
` + raiseNofile + ` || :
exec "$@" --pid-file="$pidf"`

// raiseNofile raises the soft open-files limit to the hard one (a hard
// limit of "unlimited" cannot be a soft one: the limit stays).
const raiseNofile = `ulimit -n "$(ulimit -Hn)" 2>/dev/null`

// crdbStopScript runs the recipe's quit when the node runs, so a resumed
// swap does not fail on a node it already stopped.
const crdbStopScript = `pidf=$1; shift
if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then exec "$@"; fi
echo "not running"`

// crdbInitScript runs cockroach init and accepts a cluster that is
// already initialised (a resumed init stage).
//
// fidelity:v20.1/S70
const crdbInitScript = `out=$("$@" 2>&1); st=$?
printf '%s\n' "$out"
case $out in *"already been initialized"*) exit 0;; esac
exit $st`

func (f cockroachFlavor) startCmd(h plan.Host) remote.Cmd {
	return remote.Cmd{Args: append([]string{"sh", "-c", crdbStartScript, "sh", h.Dir + "/cockroach.pid"}, f.startArgs(h)...)}
}

func (f cockroachFlavor) start(st *Stage) {
	for _, h := range f.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "start node", Idempotent: true, Cmd: f.startCmd(h)})
	}
}

// sql runs statements in the SQL shell of node h.
func (f cockroachFlavor) sql(h plan.Host, stmts ...string) remote.Cmd {
	args := []string{f.bin(), "sql", "--insecure", "--host=" + hostPort(h)}
	for _, s := range stmts {
		args = append(args, "-e", s)
	}
	return remote.Cmd{Args: args}
}

// fidelity:v25.4/6
func (f cockroachFlavor) init(st *Stage) {
	n := f.p.Nodes[0]
	var note string
	if s := f.p.LicenseNote(); s != "" {
		note = "-- " + s // from v24.3 a licence is optional (fidelity:v25.4/15)
	}
	st.Steps = append(st.Steps,
		Step{Host: n.Name, Kind: Exec, What: "initialise the cluster", Idempotent: true, // crdbInitScript accepts an initialised cluster
			Cmd:   remote.Cmd{Args: []string{"sh", "-c", crdbInitScript, "sh", f.bin(), "init", "--insecure", "--host=" + hostPort(n)}},
			Shows: note},
		Step{Host: n.Name, Kind: Wait, What: "wait for SQL", Poll: 2 * time.Second, Timeout: 5 * time.Minute, Settle: 1,
			Cmd: f.sql(n, "SELECT 1")},
	)
}

// fidelity:v20.1/S63 fidelity:v20.1/S64 fidelity:v20.1/S65 fidelity:v20.1/S66 fidelity:v20.1/S67 fidelity:v20.1/S68
//
// fidelity:v25.4/8 fidelity:v25.4/14
func (f cockroachFlavor) configure(st *Stage) {
	n := f.p.Nodes[0]
	s := &f.p.Settings
	var stmts []string
	if s.ImportReplicas > 0 {
		stmts = append(stmts, fmt.Sprintf("ALTER RANGE default CONFIGURE ZONE USING num_replicas = %d;", s.ImportReplicas))
	}
	for _, kv := range s.Ordered() {
		stmts = append(stmts, fmt.Sprintf("SET CLUSTER SETTING %s = %s;", kv.Name, sqlValue(kv.Value)))
	}
	if s.GCTTLSeconds > 0 {
		stmts = append(stmts, fmt.Sprintf("ALTER RANGE default CONFIGURE ZONE USING gc.ttlseconds = %d;", s.GCTTLSeconds))
	}
	if l := f.p.License; l != nil {
		stmts = append(stmts, fmt.Sprintf("SET CLUSTER SETTING cluster.organization = %s;", sqlLiteral(l.Organization)))
	}
	if len(stmts) > 0 {
		st.add(Step{Host: n.Name, Kind: Exec, What: "apply cluster settings", Idempotent: true, Cmd: f.sql(n, stmts...)})
	}
	if l := f.p.License; l != nil {
		// The key goes on stdin, never on a command line (visible in ps).
		c := f.sql(n)
		c.Stdin = "SET CLUSTER SETTING enterprise.license = " + remote.Placeholder("license") + ";\n"
		c.Secrets = map[string]remote.Secret{"license": licenseSecret{l.Key}}
		st.add(Step{Host: n.Name, Kind: Exec, What: "set the enterprise licence", Idempotent: true, Cmd: c})
	}
}

// sslDisable is the recipes' ?sslmode=disable (insecure clusters).
var sslDisable = url.Values{"sslmode": {"disable"}}

// urls are the recipe's connection strings, one per node, in node order
// (rack order), as the 100k recipe's addrs file. They name the database
// (tpcc), which CockroachDB's workload adds itself through its --db flag.
func (f cockroachFlavor) urls() []string {
	var out []string
	for _, h := range f.p.Nodes {
		out = append(out, remote.PostgresURL("root", h.Addr, h.SQLPort, f.p.TPCC.Database, sslDisable))
	}
	return out
}

func (f cockroachFlavor) initFlags() []string { return nil }

// runURLs are the URLs workload host h runs against, in runOrder
// (crdb_affinity.go).
//
// fidelity:v20.1/S59
func (f cockroachFlavor) runURLs(h plan.Host) []string {
	all := f.urls()
	var out []string
	for _, i := range f.runOrder(h) {
		out = append(out, all[i])
	}
	return out
}

// versionFlags pass the plan's release to the embedded driver, so that
// it issues that release's statements without asking the server (and the
// dry-run lists exactly them); without one the driver asks.
func (f cockroachFlavor) versionFlags() []string {
	if b, ok := f.p.CockroachBuild(); ok {
		return []string{"--cockroach-version", b.String()}
	}
	return nil
}

// partitionFlags are workload's partitioning flags beyond --partitions,
// when the plan sets them.
func (f cockroachFlavor) partitionFlags() []string {
	t := f.p.TPCC
	var out []string
	if t.PartitionStrategy != "" && t.PartitionStrategy != "replication" {
		out = append(out, "--partition-strategy", t.PartitionStrategy)
	}
	if len(t.Zones) > 0 {
		out = append(out, "--zones", strings.Join(t.Zones, ","))
	}
	if t.ReplicateStaticColumns {
		out = append(out, "--replicate-static-columns")
	}
	return out
}

// partitionShows is the partitioning SQL workload issues for the plan's
// release, warehouses, partitions, strategy and zones: what the
// partitioning command will run (workload's partition.go at the release;
// docs/fidelity/v20.1.md and v25.4.md cite the lines).
func (f cockroachFlavor) partitionShows() string {
	t := f.p.TPCC
	b, ok := f.p.CockroachBuild()
	if !ok {
		return "-- the partitioning SQL depends on the CockroachDB release, which the driver asks the server; set tpcc.cockroach_version to list it here"
	}
	v, rel := b.Version, b.Release()
	parts, err := tpcc.NewPartitions(t.Warehouses, t.Warehouses, t.Partitions)
	if err != nil {
		return "-- " + err.Error()
	}
	strategy, _ := crdb.ParsePartitionStrategy(t.PartitionStrategy) // validated
	stmts, err := fixtures.WorkloadPartitionStatements(fixtures.PartitionOptions{Version: v, Build: b, Parts: parts, Strategy: strategy,
		Zones: t.Zones, FKIndexes: rel.SchemaFKIndexes, ReplicateStaticColumns: t.ReplicateStaticColumns})
	if err != nil {
		return "-- " + err.Error()
	}
	return fmt.Sprintf("-- workload's partitioning for CockroachDB %s (%s), %d warehouses in %d partitions (%s), unless already partitioned:\n%s;",
		b, partitionedWhat(rel), t.Warehouses, t.Partitions, strategy, strings.Join(stmts, ";\n"))
}

// partitionedWhat says which of the release-dependent objects its
// workload partitions.
func partitionedWhat(rel crdb.Release) string {
	var s []string
	if rel.PartitionOrderIdx {
		s = append(s, `"order"@order_idx partitioned`)
	} else {
		s = append(s, `"order"@order_idx skipped, as this patch level's workload does`)
	}
	if rel.SchemaFKIndexes && rel.PartitionFKIndexes {
		s = append(s, "FK indexes partitioned")
	} else if rel.SchemaFKIndexes {
		s = append(s, "FK indexes not partitioned")
	}
	return strings.Join(s, ", ")
}

// fidelity:v20.1/S60
func (f cockroachFlavor) partition(st *Stage, c *compiler) {
	p := f.p
	n := p.Nodes[0]
	if s := p.Settings; s.ImportReplicas > 0 {
		st.add(Step{Host: n.Name, Kind: Exec, What: "restore replication", Idempotent: true,
			Cmd: f.sql(n, fmt.Sprintf("ALTER RANGE default CONFIGURE ZONE USING num_replicas = %d;", s.Replicas))})
		st.then()
	}
	// The recipe partitions with a short run: the driver partitions the
	// tables (PARTITION BY RANGE + zone configs per rack, item replicas)
	// before running. workload never judges that run (its PostRun prints
	// and returns nil), so benchrig's runs with --no-verdict: a low
	// efficiency after a cold start must not stop a plan hours into it.
	// The run goes to every node's URL, not the recipe's one
	// (partitionURLsNote).
	if p.TPCC.Driver == plan.DriverWorkload {
		f.workloadPartition(st)
	} else {
		w := p.Workload[0]
		args := append([]string{"./benchrig", "tpcc", "run"}, f.versionFlags()...)
		args = append(args, "--partitions", strconv.Itoa(p.TPCC.Partitions))
		args = append(args, f.partitionFlags()...)
		urls := f.urls()
		args = append(args, "--warehouses", strconv.Itoa(p.TPCC.Warehouses), "--duration", p.TPCC.PartitionRun.String(), "--ramp", "1ms",
			"--no-verdict")
		args = append(args, urls...)
		st.add(Step{Host: w.Name, Kind: Job, What: "partition the tables (" + notJudged + ")", JobName: "partition",
			JobDir: w.Dir + "/jobs", Cmd: remote.Cmd{Dir: w.Dir, Args: withUlimit(p.TPCC.Ulimit, args)}, Positional: len(urls),
			Shows: "-- " + notJudged + " (--no-verdict: its audit is printed, never a failure)\n-- " + partitionURLsNote + "\n" + f.partitionShows()})
	}
	st.then()
	f.waitReplicated(st)
}

// waitReplicated waits until up-replication and partitioning have
// settled, by the release's criterion (crdb.Release.SettleStatements):
// every range has its replicas and no store's replicate queue (from
// v24.1 nor lease queue) has work, four polls in a row.
//
// fidelity:v25.4/21 fidelity:v25.4/43
func (f cockroachFlavor) waitReplicated(st *Stage) {
	n := f.p.Nodes[0]
	replicas := max(f.p.Settings.Replicas, 3)
	rel, _ := f.p.Release()
	stmts := rel.SettleStatements(replicas)
	// The timeout follows from the estimate of what the wait waits for
	// (settleOf: the bytes to copy at the release's snapshot rates).
	s, ok := settleOf(f.p)
	if !ok {
		s.timeout = settleSlack
	}
	st.add(Step{Host: n.Name, Kind: Wait, What: "wait for up-replication and partitioning",
		Poll: 30 * time.Second, Timeout: s.timeout, Settle: 4,
		Cmd: f.sql(n, stmts...), Shows: "-- estimate " + plan.FormatDuration(s.estimate) + ": " + s.basis})
}

// importStatements loads the data as `workload fixtures import tpcc`
// does: one `benchrig tpcc import` from the first workload host issues
// the release's IMPORT statements, whose workload:// sources every node
// generates in parallel; its output is the jobs' progress per table. The
// step shows the statements and the estimate, from the same functions.
// The partitioning is left to the partition stage when the plan has one
// (the recipes partition after restoring replication), else done here.
//
// fidelity:v20.1/S15
func (f cockroachFlavor) importStatements(st *Stage) {
	p := f.p
	t := p.TPCC
	h := p.Workload[0]
	args := append([]string{"./benchrig", "tpcc", "import"}, f.versionFlags()...)
	args = append(args, "--nodes", strconv.Itoa(len(p.Nodes)), "--warehouses", strconv.Itoa(t.Warehouses))
	if t.Database != "tpcc" {
		args = append(args, "--db", t.Database)
	}
	if t.Import.FilesPerNode > 1 {
		args = append(args, "--files-per-node", strconv.Itoa(t.Import.FilesPerNode))
	}
	partitionHere := t.Partitions > 1 && !slices.Contains(p.Stages, "partition")
	if partitionHere {
		args = append(args, "--partitions", strconv.Itoa(t.Partitions))
		args = append(args, f.partitionFlags()...)
	}
	args = append(args, f.urls()[0])
	st.add(Step{Host: h.Name, Kind: Job, What: "import the TPC-C tables (IMPORT from workload:// sources)",
		JobName: "import", JobDir: h.Dir + "/jobs", Cmd: remote.Cmd{Dir: h.Dir, Args: args},
		Shows: f.importShows(partitionHere)})
	if partitionHere {
		st.then()
		f.waitReplicated(st)
	}
}

// importShows lists what `benchrig tpcc import` will issue: the
// statements of fixtures.PlanImport for the plan's release and node count,
// and fixtures.EstimateImport's rows, bytes and duration.
func (f cockroachFlavor) importShows(partition bool) string {
	t := f.p.TPCC
	est := "-- " + fixtures.EstimateImport(t.Warehouses, len(f.p.Nodes)).String()
	b, ok := f.p.CockroachBuild()
	if !ok {
		return "-- the statements depend on the CockroachDB release, which the command asks the server; set tpcc.cockroach_version to list them here\n" + est
	}
	v := b.Version
	o := fixtures.ImportOptions{Version: v, Build: b, DB: t.Database, Warehouses: t.Warehouses, Seed: 1, FKs: true,
		Nodes: len(f.p.Nodes), FilesPerNode: t.Import.FilesPerNode, InjectStats: true, Schema: fixtures.ImportSchema(v, true)}
	if partition {
		o.Partitions, o.Zones, o.ReplicateStaticColumns = t.Partitions, t.Zones, t.ReplicateStaticColumns
		o.Strategy, _ = crdb.ParsePartitionStrategy(t.PartitionStrategy)
	}
	ip, err := fixtures.PlanImport(o)
	if err != nil {
		return "-- " + err.Error() + "\n" + est
	}
	return strings.TrimRight(ip.Display(), "\n") + "\n" + est
}

// swap replaces the binary node by node (the 100k recipe's "Re-start
// CockroachDB"): quit, keep the old binary as cockroach_old, install the
// new one, start with the same command, wait until the node serves SQL,
// at most as long as the cluster waits before it declares the node dead
// and copies its replicas elsewhere (storeDeadAfter).
//
// fidelity:v20.1/N5
func (f cockroachFlavor) swap(st *Stage) {
	dead, deadWhy := storeDeadAfter(f.p)
	for _, h := range f.p.Nodes {
		st.Steps = append(st.Steps, releaseOf(f.p).stop(f, h),
			Step{Host: h.Name, Kind: Exec, What: "keep the old binary",
				Cmd: remote.Cmd{Args: f.sudo("mv", "--", f.bin(), f.bin()+"_old")}},
		)
		st.add(installBinary(h, *f.p.Binaries.Swap, f.bin(), f.p.SSH.Sudo)...)
		st.Steps = append(st.Steps,
			Step{Host: h.Name, Kind: Exec, What: "start node", Idempotent: true, Cmd: f.startCmd(h)},
			Step{Host: h.Name, Kind: Wait, What: "wait for the node", Poll: 2 * time.Second, Timeout: dead, Settle: 1,
				Cmd: f.sql(h, "SELECT 1"), Shows: "-- up to " + deadWhy},
		)
	}
}

// licenseSecret reads the licence key when the configure stage runs, and
// hands it over as an SQL literal.
type licenseSecret struct{ ref *plan.SecretRef }

func (s licenseSecret) Name() string { return "license" }

func (s licenseSecret) Reveal() (string, error) {
	v, err := s.ref.Read()
	if err != nil {
		return "", err
	}
	return sqlLiteral(v), nil
}
