package stages

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/crdb/fixtures"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/tpcc"
	loadprofile "github.com/benchrig/benchrig/tpcc/profile"
)

// HostNeed is what a workload host's run step needs of the operating
// system: the connections it opens and the open-files limit that takes
// (the recipes' `ulimit -n 200500`), the most over all of its rounds.
type HostNeed struct {
	Terminals int // terminals (wait mode) or workers (no wait)
	Conns     int
	OpenFiles int
	// Ulimit is the plan's tpcc.ulimit, which the run step raises its
	// limit to (0: the step runs with the host's own limit).
	Ulimit int
	// Err is why the driver would refuse the run step's configuration.
	Err string
}

// NodeConns is the connections a database node receives from every
// workload host at once (the most over all rounds) and the most it
// accepts.
type NodeConns struct {
	Conns int
	Max   int    // 0: no limit known
	Limit string // where Max comes from, for the table
	// Setting is the setting that raises Max ("" when none does).
	Setting string
	// Step is the first step that sends Conns ("run", "allocate").
	Step string
}

// hostConns is one round's run step on one workload host: its needs and
// the connections it opens to each of its URLs.
type hostConns struct {
	need HostNeed
	urls []string
	per  []int  // connections to urls[i]
	step string // the step, for preflight's reasons: "run", "allocate", "partition"
}

// runNeeds is the tpcc run step's needs on each workload host: the
// RunConfig its flags express (runRound), given to tpcc.RunNeeds, once
// per round (and for the allocation run). A search tries up to every
// warehouse active.
func (w tpccWorkload) runNeeds() map[string][]hostConns {
	c, p := w.c, w.c.p
	out := map[string][]hostConns{}
	rounds := p.Rounds()
	steps := make([]string, len(rounds))
	for i, rd := range rounds {
		steps[i] = strings.TrimSpace("run " + rd.Label)
	}
	if slices.Contains(p.Stages, "allocate") {
		rounds = append(rounds, plan.Round{})
		steps = append(steps, "allocate")
	}
	for i, rd := range rounds {
		for _, h := range p.Workload {
			urls := c.f.runURLs(h)
			out[h.Name] = append(out[h.Name], sizeRun(runConfig(p, h, rd, urls), p.TPCC.Ulimit, steps[i]))
		}
	}
	if _, crdb := c.f.(cockroachFlavor); crdb && slices.Contains(p.Stages, "partition") && p.TPCC.Partitions > 1 {
		// The partitioning run (cockroachFlavor.partition), alone on the
		// first workload host, over every node's URL, every partition.
		h := p.Workload[0]
		cfg := tpcc.RunConfig{URLs: c.f.urls(), Warehouses: p.TPCC.Warehouses, ActiveWarehouses: p.TPCC.Warehouses,
			Partitions: p.TPCC.Partitions, Wait: 1, Profile: tpcc.Profile(p.TPCC.Profile)}
		if p.TPCC.Driver == plan.DriverWorkload {
			cfg.Conns = connsPerWarehouse * cfg.ActiveWarehouses // workload's default --conns
		}
		out[h.Name] = append(out[h.Name], sizeRun(cfg, p.TPCC.Ulimit, "partition"))
	}
	return out
}

// sizeRun is one run step's needs, from tpcc.RunNeeds.
func sizeRun(cfg tpcc.RunConfig, ulimit int, step string) hostConns {
	hc := hostConns{urls: cfg.URLs, need: HostNeed{Ulimit: ulimit}, step: step}
	cfg.ChooseProfile = loadprofile.Choose // the plan names it; the profile sizes the connections
	n, err := tpcc.RunNeeds(cfg)
	if err != nil {
		hc.need.Err = err.Error()
		return hc
	}
	hc.need.Terminals, hc.need.Conns, hc.need.OpenFiles = n.Terminals, n.Conns, n.OpenFiles
	for range cfg.URLs {
		// RunNeeds counts the same number on every URL.
		hc.per = append(hc.per, n.Conns/len(cfg.URLs))
	}
	return hc
}

// runConfig is the configuration runRound's flags give `benchrig tpcc
// run` on host h in round rd (tpcc.ulimit and extra_flags aside).
func runConfig(p *plan.Plan, h plan.Host, rd plan.Round, urls []string) tpcc.RunConfig {
	cfg := tpcc.RunConfig{URLs: urls, Warehouses: p.TPCC.Warehouses, ActiveWarehouses: rd.ActiveWarehouses(p),
		Partitions: p.TPCC.Partitions, Workers: rd.Workers(p), Conns: p.TPCC.Conns, Wait: 1, Profile: tpcc.Profile(p.TPCC.Profile)}
	if p.TPCC.Search != nil {
		cfg.ActiveWarehouses = p.TPCC.Warehouses
	}
	if p.TPCC.Partitions > 0 && len(p.Workload) > 1 || h.Pinned {
		cfg.Affinity = h.Partitions
	}
	switch p.TPCC.Wait {
	case "", "true":
	case "false":
		cfg.Wait = 0
	default:
		// Validation accepts a factor, as the driver's --wait does.
		if f, err := strconv.ParseFloat(p.TPCC.Wait, 64); err == nil {
			cfg.Wait = f
		}
	}
	if p.TPCC.Driver == plan.DriverWorkload && p.Flavor == plan.Cockroach && cfg.Workers == 0 && cfg.Conns == 0 {
		// The --workers and --conns runRound passes a host driving a
		// share of the partitions (v25.1+, crdb_affinity.go).
		if n := (cockroachFlavor{p}).affinityShare(h, cfg.ActiveWarehouses); n > 0 {
			cfg.Workers, cfg.Conns = n*terminalsPerWarehouse, n*connsPerWarehouse
		}
	}
	if p.TPCC.Driver == plan.DriverWorkload && cfg.Conns == 0 && cfg.Wait != 0 {
		// workload's own default: 2 connections per active warehouse of
		// the whole run (numConnsPerWarehouse), on every process whatever
		// its affinity; hence the recipes' ulimit -n 200500 at 100,000
		// warehouses.
		cfg.Conns = 2 * cfg.ActiveWarehouses
	}
	return cfg
}

// needer is a workload whose run steps' needs are known.
type needer interface {
	runNeeds() map[string][]hostConns
}

// crudFdReserve is what a crud run holds open besides its connections.
const crudFdReserve = 64

// runNeeds of crud: every goroutine holds a connection for the whole run,
// goroutine g on URLs[g mod len(URLs)].
func (w crudWorkload) runNeeds() map[string][]hostConns {
	c, p := w.c, w.c.p
	g := p.CRUD.Goroutines
	out := map[string][]hostConns{}
	for _, h := range p.Workload {
		urls := c.f.urls()
		hc := hostConns{urls: urls, need: HostNeed{Terminals: g, Conns: g, OpenFiles: g + crudFdReserve, Ulimit: p.TPCC.Ulimit}, step: "run"}
		for i := range urls {
			hc.per = append(hc.per, g/len(urls)+btoi(i < g%len(urls))) // i < len(urls): no division by 0
		}
		out[h.Name] = []hostConns{hc}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// needsOf sums a workload's needs: per workload host the most of its
// rounds, and the most connections one of its steps opens to one
// destination; per node the most connections any one round sends it,
// against its limit.
func (c *compiler) needsOf(w needer) (map[string]HostNeed, map[string]NodeConns, map[string]DestConns) {
	p := c.p
	byHost := w.runNeeds()
	dests := destConnsOf(byHost)
	urlNode := map[string]string{}
	urls := c.f.urls()
	for i, u := range urls {
		switch {
		case len(urls) == len(p.Nodes):
			urlNode[u] = p.Nodes[i].Name
		case i == 0 && len(p.Nodes) > 0:
			urlNode[u] = p.Nodes[0].Name // postgres: the primary
		}
	}
	hosts := map[string]HostNeed{}
	nodes := map[string]NodeConns{}
	for _, h := range p.Workload {
		for _, hc := range byHost[h.Name] {
			old, seen := hosts[h.Name]
			if !seen || hc.need.Err != "" && old.Err == "" || old.Err == "" && hc.need.OpenFiles > old.OpenFiles {
				hosts[h.Name] = hc.need
			}
		}
	}
	// Rounds run one after another; a round's hosts all at once.
	rounds := 0
	for _, l := range byHost {
		rounds = max(rounds, len(l))
	}
	for r := range rounds {
		sum := map[string]int{}
		step := ""
		for _, h := range p.Workload {
			if l := byHost[h.Name]; r < len(l) {
				step = l[r].step
				for i, u := range l[r].urls {
					if n, ok := urlNode[u]; ok {
						sum[n] += l[r].per[i]
					}
				}
			}
		}
		for n, s := range sum {
			nc := nodes[n]
			if s > nc.Conns {
				nc.Conns, nc.Step = s, step
			}
			nodes[n] = nc
		}
	}
	most := 0
	for _, nc := range nodes {
		most = max(most, nc.Conns)
	}
	limit, text, setting := c.connLimit(most)
	for n, nc := range nodes {
		nc.Max, nc.Limit, nc.Setting = limit, text, setting
		nodes[n] = nc
	}
	return hosts, nodes, dests
}

// PostgreSQL's defaults for the connection limit (runtime-config-connection).
const (
	pgMaxConnections   = 100
	pgSuperuserReserve = 3
)

// connLimit is the most connections a node accepts from a run that
// sends at most conns to one node, and where that comes from: the plan's
// settings, else what the flavor starts its servers with.
func (c *compiler) connLimit(conns int) (most int, limit, setting string) {
	set := map[string]string{}
	for _, s := range c.p.Settings.Ordered() {
		set[s.Name] = s.Value
	}
	switch c.p.Flavor {
	case plan.Postgres:
		// benchrig connects as the cluster's superuser (initdb's user),
		// which may also take the superuser_reserved_connections slots:
		// all of max_connections is the run's, leaving none for an admin.
		// The start stage sets it (pgServerFor): the plan's value, else
		// enough for the run.
		for _, s := range pgServerFor(c.p, conns).Settings {
			if s.Name != "max_connections" {
				continue
			}
			if _, given := set[s.Name]; given {
				return s.Value, fmt.Sprintf("max_connections %d, the plan's settings (set by the start stage)", s.Value), "max_connections"
			}
			return s.Value, fmt.Sprintf("max_connections %d, set by the start stage (%s)", s.Value, s.Why), "max_connections"
		}
	case plan.Cockroach:
		if v, err := strconv.Atoi(set["server.max_connections_per_gateway"]); err == nil && v > 0 {
			return v, fmt.Sprintf("server.max_connections_per_gateway %d, the plan's settings", v), "server.max_connections_per_gateway"
		}
		return 0, "none, server.max_connections_per_gateway unset", ""
	}
	return 0, "none known", ""
}

// hostLimit reads a limit `ulimit` printed: a number, or "unlimited";
// ok is false when the host printed neither.
func hostLimit(s string) (n int, ok bool) {
	if s == "unlimited" {
		return math.MaxInt, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// judgeOpenFiles compares a workload host's open-files limit, as its run
// step will get it, with what the step needs: the table's NOFILE and
// CONNS cells and a failure ("" when none). With tpcc.ulimit the step
// sets its limit to it (`ulimit -n`); without, the driver, a Go program,
// raises its soft limit to the hard limit as it starts, so the hard limit
// is what it gets.
func judgeOpenFiles(need HostNeed, kv map[string]string) (nofile, conns, failure string) {
	if need.Err != "" {
		return kv["nofile_hard"], "-", "the driver refuses the run step's configuration: " + need.Err
	}
	conns = fmt.Sprintf("opens %d", need.Conns)
	hard, known := hostLimit(kv["nofile_hard"])
	have, from := hard, "hard limit"
	if need.Ulimit > 0 {
		have, from = need.Ulimit, "tpcc.ulimit"
		if kv["nofile_ok"] == "0" {
			// The step cannot set it at all: that failure is said already.
			return fmt.Sprintf("need %d, tpcc.ulimit %d (above hard limit %s)", need.OpenFiles, need.Ulimit, kv["nofile_hard"]), conns, ""
		}
	} else if !known {
		return fmt.Sprintf("need %d, limit unknown", need.OpenFiles), conns, ""
	}
	haveText := strconv.Itoa(have)
	if have == math.MaxInt {
		haveText = "unlimited"
	}
	nofile = fmt.Sprintf("need %d, have %s (%s)", need.OpenFiles, haveText, from)
	if have >= need.OpenFiles {
		return nofile, conns, ""
	}
	failure = fmt.Sprintf("open-files limit %d (%s) is below the %d the run needs for %s", have, from, need.OpenFiles, nConns(need.Conns))
	switch {
	case known && hard >= need.OpenFiles:
		failure += fmt.Sprintf(": set tpcc.ulimit: %d, or lower tpcc.conns", need.OpenFiles)
	default:
		failure += fmt.Sprintf(": raise the hard limit to at least %d (nofile in /etc/security/limits.conf, or LimitNOFILE of sshd) and set tpcc.ulimit: %d, or lower tpcc.conns", need.OpenFiles, need.OpenFiles)
	}
	return nofile + " (too low)", conns, failure
}

// judgeConns compares the connections a node receives with its limit.
func judgeConns(nc NodeConns) (conns, failure string) {
	if nc.Max == 0 {
		return fmt.Sprintf("gets %d", nc.Conns), ""
	}
	conns = fmt.Sprintf("gets %d of %d", nc.Conns, nc.Max)
	if nc.Conns <= nc.Max {
		return conns, ""
	}
	fix := "lower tpcc.conns"
	if nc.Setting != "" {
		fix = fmt.Sprintf("set %s: %d (or more) under settings.cluster, or %s", nc.Setting, nc.Conns, fix)
	}
	return conns + " (too many)", fmt.Sprintf("the run opens %s to this node, %s allows %d: %s", nConns(nc.Conns), nc.Setting, nc.Max, fix)
}

// limitsNote says where the nodes' connection limit comes from, under the
// table.
func (c *Check) limitsNote() string {
	for _, h := range c.Hosts {
		if nc, ok := c.Conns[h]; ok {
			return "connection limit of the nodes: " + nc.Limit + "\n"
		}
	}
	return ""
}

// nConns is "1 connection", "2 connections".
func nConns(n int) string {
	if n == 1 {
		return "1 connection"
	}
	return strconv.Itoa(n) + " connections"
}

// NodeNeed is what a database node needs of its host besides the
// connections it receives (NodeConns): the open files its process holds
// at the most (connections, the store engine's files, its own network),
// and the bytes its store's file system must hold. A zero figure is one
// benchrig does not model for the flavor (PostgreSQL's files are per
// backend process; its store is not sized).
type NodeNeed struct {
	Step                  string // the step that sends the most connections
	Conns                 int
	EngineFiles, Network  int
	OpenFiles             int
	OpenFilesWhy          string
	StoreBytes            int64
	StoreWhy              string
	Store, StoreMount     string
	MinLimit, Recommended int // the release's own floor and the soft limit it raises itself to
}

// WorkNeed is what a workload host needs besides its connections and
// open files (HostNeed): the driver's memory and the work directory's
// bytes.
type WorkNeed struct {
	MemBytes int64 // 0: not modelled (workload's own binary)
	MemWhy   string
	DirBytes int64
	DirWhy   string
}

// LongStep is a step that takes hours at the recipe's scale: its
// estimate, the timeout that follows from it (0: a job, waited on until
// it ends) and how both are reached.
type LongStep struct {
	Step, Host        string
	Estimate, Timeout time.Duration
	Basis             string
}

// The driver's measured memory (README, "measured"): a workload host of
// the 100k recipe peaked at 8.49 GiB for 200,070 connections with their
// terminals (tpcc.BenchmarkHost200k, workload profile): 45.6 kB per
// connection; wait-mode terminals peak at 4.6 kB each, connections
// included (tpcc.BenchmarkWaitMemory, pipelined profile).
const (
	driverBytesPerConn     = 45_600
	driverBytesPerTerminal = 4_600
)

// A measured run's files on its workload host (CollectMaxBytes' sizing):
// the histogram file's line of about 1 kB per transaction type (5) per
// second, and as much again for the ticks, logs and host samples.
const resultBytesPerSecond = 2 * 5 * 1000

// settleMargin and settleSlack make the replication wait's timeout from
// its estimate: the estimate assumes every store sends snapshots at its
// limit all the time, which a store that runs out of work before the
// others does not; twice it, plus the lease transfers and the settle
// polls the byte count leaves out.
const (
	settleMargin = 2
	settleSlack  = 30 * time.Minute
)

// nodeNeeds are each node's open files and store bytes (cockroach), from
// the connections it receives (nodes), the import's data and the
// release's Resources.
func (c *compiler) nodeNeeds(nodes map[string]NodeConns) map[string]NodeNeed {
	p := c.p
	out := map[string]NodeNeed{}
	if p.Flavor != plan.Cockroach {
		for n, nc := range nodes {
			out[n] = NodeNeed{Step: nc.Step, Conns: nc.Conns}
		}
		return out
	}
	rel := releaseFacts(p)
	res := rel.Resources
	n := len(p.Nodes)
	imp := fixtures.EstimateImport(p.TPCC.Warehouses, n)
	replicas := max(p.Settings.Replicas, 3)
	share := imp.Bytes * int64(replicas) / int64(n)
	store := int64(math.Ceil(float64(share) / res.FullFraction))
	// Twice the bottom level's file count: the files of the levels above
	// it, L0's ingested files during the import and the temp store.
	engine := int(2 * ((share + res.EngineFileBytes - 1) / res.EngineFileBytes))
	network := res.NetworkFDMin + 2*res.RPCClasses*(n-1)
	for _, h := range p.Nodes {
		nc := nodes[h.Name]
		need := NodeNeed{Step: nc.Step, Conns: nc.Conns, EngineFiles: engine, Network: network, Store: h.Store, StoreMount: h.StoreMount,
			MinLimit: res.EngineFDMin + res.NetworkFDMin, Recommended: res.EngineFDRecommended + res.NetworkFDRecommended}
		need.OpenFiles = max(nc.Conns+engine+network, need.MinLimit)
		need.OpenFilesWhy = fmt.Sprintf("%d connections + %d engine files (2 x %s / %s files, %s) + %d network (%d, and %d RPC connections each way to each of %d nodes)",
			nc.Conns, engine, humanBytes(share), humanBytes(res.EngineFileBytes), releaseName(rel), network, res.NetworkFDMin, res.RPCClasses, n-1)
		need.StoreBytes = store
		need.StoreWhy = fmt.Sprintf("%s x %d replicas / %d nodes = %s, over the allocator's %.3g full fraction", humanBytes(imp.Bytes), replicas, n, humanBytes(share), res.FullFraction)
		out[h.Name] = need
	}
	return out
}

// workNeeds are each workload host's memory and work-directory bytes.
func (c *compiler) workNeeds(hosts map[string]HostNeed) map[string]WorkNeed {
	p := c.p
	secs := float64(len(p.Rounds())) * (p.TPCC.Ramp.Std() + p.TPCC.Duration.Std()).Seconds()
	dir := int64(secs * resultBytesPerSecond)
	out := map[string]WorkNeed{}
	for _, h := range p.Workload {
		w := WorkNeed{DirBytes: dir, DirWhy: fmt.Sprintf("the measured rounds' %s of results, logs and samples at %s/s", plan.FormatDuration(time.Duration(secs)*time.Second), humanBytes(resultBytesPerSecond))}
		need := hosts[h.Name]
		if p.TPCC.Driver != plan.DriverWorkload && need.Err == "" {
			w.MemBytes = max(int64(need.Conns)*driverBytesPerConn, int64(need.Terminals)*driverBytesPerTerminal)
			w.MemWhy = fmt.Sprintf("the larger of %s x %s and %d terminals x %s (the driver's measured peaks)",
				nConns(need.Conns), humanBytes(driverBytesPerConn), need.Terminals, humanBytes(driverBytesPerTerminal))
		}
		out[h.Name] = w
	}
	return out
}

// longSteps are the estimates of the plan's long steps and the timeouts
// of its waits.
func (c *compiler) longSteps() []LongStep {
	p := c.p
	var out []LongStep
	if p.Flavor == plan.Cockroach && slices.Contains(p.Stages, "import") && p.TPCC.Import.Method != plan.ImportInit {
		e := fixtures.EstimateImport(p.TPCC.Warehouses, len(p.Nodes))
		out = append(out, LongStep{Step: "import", Host: p.Workload[0].Name, Estimate: e.Duration,
			Basis: fmt.Sprintf("%d warehouses on %d nodes at the 100k recipe's %.0f warehouses per node-hour; a job, followed until it ends", e.Warehouses, e.Nodes, 100000.0/(6*81))})
	}
	if s, ok := settleOf(p); ok {
		out = append(out, LongStep{Step: "wait for up-replication and partitioning", Host: p.Nodes[0].Name, Estimate: s.estimate, Timeout: s.timeout, Basis: s.basis})
	}
	if slices.Contains(p.Stages, "allocate") {
		out = append(out, LongStep{Step: "allocate", Host: "every workload host", Estimate: p.TPCC.AllocateRamp.Std(), Basis: "allocate_ramp; a job"})
	}
	if slices.Contains(p.Stages, "run") {
		d := time.Duration(len(p.Rounds())) * (p.TPCC.Ramp.Std() + p.TPCC.Duration.Std())
		out = append(out, LongStep{Step: "run", Host: "every workload host", Estimate: d, Basis: "ramp + duration of every round; a job"})
	}
	return out
}

// settle is the wait for up-replication and partitioning, estimated.
type settle struct {
	estimate, timeout time.Duration
	basis             string
}

// settleOf estimates the replication wait of a partitioned cockroach
// plan (ok false: the plan has none): the bytes the replicate queues copy
// at the rates that limit them, each store sending SnapshotsPerStore at
// once. Missing replicas (an import at import_replicas, restored to
// replicas) are added at the up-replication rate; replicas the
// partitioning's zone configs want elsewhere move at the rebalance rate.
// A store holds a partition's rack's share of replicas by chance: a range
// keeps a replica where it is with probability (nodes in the rack)/nodes.
func settleOf(p *plan.Plan) (settle, bool) {
	t := p.TPCC
	if p.Flavor != plan.Cockroach || t.Partitions <= 1 || len(p.Nodes) == 0 {
		return settle{}, false
	}
	res := releaseFacts(p).Resources
	n := len(p.Nodes)
	data := float64(fixtures.EstimateImport(t.Warehouses, n).Bytes)
	replicas := max(p.Settings.Replicas, 3)
	imported := replicas
	if p.Settings.ImportReplicas > 0 {
		imported = p.Settings.ImportReplicas
	}
	racks := max(p.Racks(), 1)
	inRack := 1 / float64(racks)
	added := data * float64(replicas-imported)
	var moved float64
	strategy, _ := crdb.ParsePartitionStrategy(t.PartitionStrategy)
	switch {
	case strategy == crdb.Leases && imported < replicas:
		// The added replica goes to the partition's rack.
	case strategy == crdb.Leases:
		moved = data * math.Pow(1-inRack, float64(replicas))
	default:
		moved = data * float64(imported) * (1 - inRack)
	}
	upRate, upFrom := settingRate(p, res.UpreplicateSetting, res.UpreplicateRate)
	rebRate, rebFrom := settingRate(p, res.RebalanceSetting, res.RebalanceRate)
	senders := float64(n * res.SnapshotsPerStore)
	secs := added/(senders*float64(upRate)) + moved/(senders*float64(rebRate))
	est := time.Duration(secs * float64(time.Second)).Round(time.Minute)
	polls := 4 * 30 * time.Second // waitReplicated's settle polls
	s := settle{estimate: est, timeout: settleMargin*est + settleSlack + polls}
	var parts []string
	if added > 0 {
		parts = append(parts, fmt.Sprintf("%s of missing replicas added at %s %s/s (%s)", humanBytes(int64(added)), res.UpreplicateSetting, humanBytes(upRate), upFrom))
	}
	if moved > 0 {
		parts = append(parts, fmt.Sprintf("%s of replicas moved to their partition's rack at %s %s/s (%s)", humanBytes(int64(moved)), res.RebalanceSetting, humanBytes(rebRate), rebFrom))
	}
	if len(parts) == 0 {
		parts = append(parts, "no replica to copy")
	}
	s.basis = fmt.Sprintf("%s, %d stores sending %d snapshot at a time; timeout %dx the estimate + %s + the settle polls",
		strings.Join(parts, " + "), n, res.SnapshotsPerStore, settleMargin, plan.FormatDuration(settleSlack))
	return s, true
}

// settingRate is a snapshot rate: the plan's cluster setting, else the
// release's default.
func settingRate(p *plan.Plan, name string, def int64) (int64, string) {
	for _, s := range p.Settings.Ordered() {
		if s.Name == name {
			if v, ok := parseByteSize(s.Value); ok && v > 0 {
				return v, "the plan's settings"
			}
		}
	}
	return def, "the release's default"
}

// parseByteSize reads a byte-size setting value: "128 MiB", "8MiB",
// "5 GiB", a bare number of bytes.
func parseByteSize(v string) (int64, bool) {
	v = strings.Trim(strings.TrimSpace(v), "'")
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := v, ""
	if i >= 0 {
		num, unit = v[:i], strings.ToLower(strings.TrimSpace(v[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f > 1e15 {
		return 0, false
	}
	mult := map[string]float64{"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12}[unit]
	if mult == 0 {
		return 0, false
	}
	return int64(f * mult), true
}

// humanBytes renders bytes in decimal units (the recipes' TB and GB),
// binary ones for an exact power of two (the release's MiB).
func humanBytes(b int64) string {
	if b > 0 && b%(1<<20) == 0 && b < 1<<40 {
		if b%(1<<30) == 0 {
			return fmt.Sprintf("%d GiB", b>>30)
		}
		return fmt.Sprintf("%d MiB", b>>20)
	}
	v := float64(b)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB"} {
		if v < 1000 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", v)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1000
	}
	return ""
}

// releaseFacts is the plan's release, or without one the baseline's
// facts (v20.1's), as the stages use them.
func releaseFacts(p *plan.Plan) crdb.Release {
	if rel, ok := p.Release(); ok {
		return rel
	}
	return crdb.Build{}.Release()
}

// releaseName names the release whose facts apply.
func releaseName(rel crdb.Release) string {
	if !rel.Build.Given() {
		return "v20.1's, the plan naming no release"
	}
	return "v" + strings.TrimPrefix(rel.Build.String(), "v") + "'s"
}

// needRow is one dimension's figure on one host: n orders the hosts (the
// group's row shows the host with the most), text and source are shown.
type needRow struct {
	need         string
	n            int64
	text, source string
}

// needsTables are the plan's needs for the dry-run and the run's
// console: one table per host group (nodes, workload hosts), each need
// with its figure and where the figure comes from, then the long steps'
// estimates and timeouts. Where a group's hosts differ, the row shows
// the host with the most.
func (c *Check) needsTables() string {
	var nodes, work []string
	for _, h := range c.Hosts {
		if _, ok := c.Nodes[h]; ok {
			nodes = append(nodes, h)
		} else if _, ok := c.Needs[h]; ok {
			work = append(work, h)
		}
	}
	var b strings.Builder
	if len(nodes)+len(work)+len(c.Long) == 0 {
		return ""
	}
	b.WriteString("the plan's needs, per host group (preflight measures each on every host):\n")
	group(&b, "database nodes", nodes, c.nodeRows)
	group(&b, "workload hosts", work, c.workRows)
	if len(c.Long) > 0 {
		b.WriteString("   long steps:\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "     STEP\tON\tESTIMATE\tTIMEOUT\tBASIS")
		for _, l := range c.Long {
			timeout := "none (a job)"
			if l.Timeout > 0 {
				timeout = plan.FormatDuration(l.Timeout)
			}
			fmt.Fprintf(tw, "     %s\t%s\t%s\t%s\t%s\n", l.Step, l.Host, plan.FormatDuration(l.Estimate), timeout, l.Basis)
		}
		tw.Flush()
	}
	return b.String()
}

// group writes one host group's table.
func group(b *strings.Builder, what string, hosts []string, rows func(string) []needRow) {
	if len(hosts) == 0 {
		return
	}
	name := hosts[0]
	if len(hosts) > 1 {
		name += ".." + hosts[len(hosts)-1]
	}
	fmt.Fprintf(b, "   %s (%d: %s):\n", what, len(hosts), name)
	type most struct {
		host string
		row  needRow
		all  bool
	}
	var order []string
	best := map[string]*most{}
	for _, h := range hosts {
		for _, r := range rows(h) {
			m, ok := best[r.need]
			switch {
			case !ok:
				order = append(order, r.need)
				best[r.need] = &most{host: h, row: r, all: true}
			case r.text != m.row.text:
				m.all = false
				if r.n > m.row.n {
					m.host, m.row = h, r
				}
			}
		}
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "     NEED\tFIGURE\tSOURCE")
	for _, need := range order {
		m := best[need]
		text := m.row.text
		if !m.all {
			text += " (the most: " + m.host + ")"
		}
		fmt.Fprintf(tw, "     %s\t%s\t%s\n", need, text, m.row.source)
	}
	tw.Flush()
}

// nodeRows are a database node's needs.
func (c *Check) nodeRows(h string) []needRow {
	n := c.Nodes[h]
	nc := c.Conns[h]
	step := n.Step
	if step == "" {
		step = "no step"
	}
	rows := []needRow{{"connections in", int64(nc.Conns), strconv.Itoa(nc.Conns),
		"the " + step + " step: every workload host's connections to this node at once; limit: " + nc.Limit}}
	if n.OpenFiles > 0 {
		rows = append(rows, needRow{"open files", int64(n.OpenFiles), strconv.Itoa(n.OpenFiles), n.OpenFilesWhy})
	} else {
		rows = append(rows, needRow{"open files", 0, "-", "not modelled: a PostgreSQL backend is a process of its own (max_files_per_process)"})
	}
	if n.StoreBytes > 0 {
		where := n.Store
		if where == "" {
			where = "cockroach-data in the login directory (no store: in the plan)"
		}
		if n.StoreMount != "" {
			where += " on " + n.StoreMount
		}
		rows = append(rows, needRow{"store bytes", n.StoreBytes, humanBytes(n.StoreBytes) + " at " + where, n.StoreWhy})
	} else {
		rows = append(rows, needRow{"store bytes", 0, "-", "not modelled for PostgreSQL; preflight asks " + "for the plan's min_free_gb"})
	}
	return rows
}

// workRows are a workload host's needs.
func (c *Check) workRows(h string) []needRow {
	n, w := c.Needs[h], c.Work[h]
	if n.Err != "" {
		return []needRow{{"run step", 0, "refused", n.Err}}
	}
	open := "the driver: connections and its own files (tpcc.RunNeeds)"
	if n.Ulimit > 0 {
		open += fmt.Sprintf("; the run step sets tpcc.ulimit %d", n.Ulimit)
	}
	rows := []needRow{
		{"connections out", int64(n.Conns), strconv.Itoa(n.Conns), fmt.Sprintf("the most of its steps (%d terminals)", n.Terminals)},
		{"open files", int64(n.OpenFiles), strconv.Itoa(n.OpenFiles), open},
	}
	if d, ok := c.Dests[h]; ok && d.Conns > 0 {
		rows = append(rows, needRow{"local ports to one ip:port", int64(d.Conns), strconv.Itoa(d.Conns),
			fmt.Sprintf("its %s step to %s; net.ipv4.ip_local_port_range bounds it", d.Step, d.Dest)})
	}
	if w.MemBytes > 0 {
		rows = append(rows, needRow{"memory", w.MemBytes, humanBytes(w.MemBytes), w.MemWhy})
	} else {
		rows = append(rows, needRow{"memory", 0, "-", "not modelled: workload's own binary (benchrig's driver is measured)"})
	}
	rows = append(rows, needRow{"work directory bytes", w.DirBytes, humanBytes(w.DirBytes), w.DirWhy})
	return rows
}
