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
)

// LongStep is a step that takes hours at the recipe's scale: its
// estimate, the timeout that follows from it (0: a job, waited on until
// it ends) and how both are reached.
type LongStep struct {
	Step, Host        string
	Estimate, Timeout time.Duration
	Basis             string
}

// settleMargin and settleSlack make the replication wait's timeout from
// its estimate: the estimate assumes every store sends snapshots at its
// limit all the time, which a store that runs out of work before the
// others does not; twice it, plus the lease transfers and the settle
// polls the byte count leaves out.
const (
	settleMargin = 2
	settleSlack  = 30 * time.Minute
)

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
//
// fidelity:v20.1/N2 fidelity:v20.1/N3
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

// storeDeadAfter is how long a node may be down before the cluster
// declares its store dead and re-replicates its data: the plan's
// server.time_until_store_dead, else the release's default. A restarted
// node that takes longer has already cost the cluster its store.
func storeDeadAfter(p *plan.Plan) (time.Duration, string) {
	res := releaseFacts(p).Resources
	for _, s := range p.Settings.Ordered() {
		if s.Name == res.StoreDeadSetting {
			if d, err := time.ParseDuration(strings.Trim(strings.TrimSpace(s.Value), "'")); err == nil && d > 0 {
				return d, fmt.Sprintf("%s %s (the plan's settings): a node down longer is declared dead and its replicas copied elsewhere", res.StoreDeadSetting, plan.FormatDuration(d))
			}
		}
	}
	return res.StoreDeadAfter, fmt.Sprintf("%s %s (the release's default): a node down longer is declared dead and its replicas copied elsewhere", res.StoreDeadSetting, plan.FormatDuration(res.StoreDeadAfter))
}
