package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/tpcc"
)

// How a workload host's connection strings meet its partitions. Up to
// v24.x workload has URL j serve partition j % P, and node i sits in rack
// i % racks (roachprod's --racks, plan Normalize's default), so every
// host gets the recipe's addrs file: all nodes in order, and partition
// p's terminals talk to rack p's nodes. From v25.1 (PR #134796) URL j
// serves affinity[j], and a worker is made per --workers, cycling over
// the host's own warehouses only, so the default (every active
// warehouse x 10) would start the whole cluster's terminals on each host.

// runOrder is the node indexes workload host h lists, in order: the
// first tpcc.gateways nodes when the plan names its gateways; every node
// up to v24.x; from v25.1, for a host driving several partitions,
// those partitions' racks' nodes interleaved in its affinity order (the
// k-th node of each rack in turn; a rack with fewer nodes repeats its
// own), so that URL j is a node of rack affinity[j % len(affinity)].
//
// fidelity:v25.4/29 fidelity:v25.4/30 fidelity:v25.4/47
func (f cockroachFlavor) runOrder(h plan.Host) []int {
	all := make([]int, len(f.p.Nodes))
	for i := range all {
		all[i] = i
	}
	if g := f.p.TPCC.Gateways; g > 0 && g < len(all) {
		// The page's gateways (validation: no partitions).
		return all[:g]
	}
	rel, _ := f.p.Release() // unknown: the zero Release, URL j serves j % P
	if !rel.URLPerAffinity || f.p.TPCC.Partitions == 0 || len(h.Partitions) < 2 || f.p.Racks() == 0 {
		return all
	}
	byRack := map[int][]int{}
	most := 0
	for i, n := range f.p.Nodes {
		byRack[n.Rack] = append(byRack[n.Rack], i)
		most = max(most, len(byRack[n.Rack]))
	}
	var out []int
	for k := 0; k < most; k++ {
		for _, part := range h.Partitions {
			nodes := byRack[part]
			if len(nodes) == 0 {
				return all // validation pins partitions to existing racks
			}
			out = append(out, nodes[k%len(nodes)])
		}
	}
	return out
}

// affinityShare is the number of active warehouses of workload host h's
// own partitions, when from v25.1 it must size its run to them: workload
// makes --workers workers cycling over the host's own warehouses (default
// every active warehouse x 10, the whole cluster's) and opens --conns
// connections (default every active warehouse x 2), so a host running a
// subset of the partitions passes both for its share, as that release's
// workload README computes them. It is 0 (the flags left out) when the
// plan sets workers or conns itself, before v25.1, or when the host runs
// every partition.
//
// fidelity:v25.4/31
func (f cockroachFlavor) affinityShare(h plan.Host, active int) int {
	t := f.p.TPCC
	rel, _ := f.p.Release()
	if !rel.URLPerAffinity || t.Workers > 0 || t.Conns > 0 || t.Partitions < 2 || len(h.Partitions) == 0 || len(h.Partitions) == t.Partitions {
		return 0
	}
	parts, err := tpcc.NewPartitions(t.Warehouses, active, t.Partitions)
	if err != nil {
		return 0 // validated
	}
	n := 0
	for _, p := range h.Partitions {
		lo, hi := parts.ActiveBounds(p)
		n += hi - lo
	}
	return n
}

// Workers and connections per warehouse: TPC-C's 10 terminals, one per
// district (clause 4.2.2), workload's NumWorkersPerWarehouse; and
// workload's numConnsPerWarehouse.
const (
	terminalsPerWarehouse = 10
	connsPerWarehouse     = 2
)
