package stages

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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
	// Step names the steps that send Conns ("run and allocate").
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
			switch {
			case s > nc.Conns:
				nc.Conns, nc.Step = s, step
			case s == nc.Conns && step != "" && !strings.Contains(nc.Step, step):
				nc.Step += " and " + step
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

// nodeNeeds are each node's open files and store bytes (cockroach), from
// the connections it receives (nodes), the import's data and the
// release's Resources.
//
// fidelity:v20.1/N1 fidelity:v20.1/N4
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
	// Nodes that share a machine (the local recipes' three) may share
	// its file system: each must find room for all of their stores.
	machine := func(h plan.Host) string { return h.SSH + ":" + strconv.Itoa(h.Port) }
	together := map[string]int{}
	for _, h := range p.Nodes {
		together[machine(h)]++
	}
	for _, h := range p.Nodes {
		nc := nodes[h.Name]
		need := NodeNeed{Step: nc.Step, Conns: nc.Conns, EngineFiles: engine, Network: network, Store: h.Store, StoreMount: h.StoreMount,
			MinLimit: res.EngineFDMin + res.NetworkFDMin, Recommended: res.EngineFDRecommended + res.NetworkFDRecommended}
		need.OpenFiles = max(nc.Conns+engine+network, need.MinLimit)
		need.OpenFilesWhy = fmt.Sprintf("%d connections + %d engine files (2 x %s / %s files, %s) + %d network (%d, and %d RPC connections each way to each of %d nodes)",
			nc.Conns, engine, humanBytes(share), humanBytes(res.EngineFileBytes), releaseName(rel), network, res.NetworkFDMin, res.RPCClasses, n-1)
		if need.OpenFiles == need.MinLimit {
			need.OpenFilesWhy += fmt.Sprintf("; at least %d (%d + %d), below which the node refuses to start", need.MinLimit, res.EngineFDMin, res.NetworkFDMin)
		}
		need.StoreBytes = store
		need.StoreWhy = fmt.Sprintf("%s x %d replicas / %d nodes = %s, over the allocator's %.3g full fraction", humanBytes(imp.Bytes), replicas, n, humanBytes(share), res.FullFraction)
		if k := together[machine(h)]; k > 1 {
			need.StoreBytes *= int64(k)
			need.StoreWhy += fmt.Sprintf(", x %d nodes on the machine (ssh %s), whose stores may share its file system", k, h.SSH)
		}
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
