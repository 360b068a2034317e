package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/crud"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// validateTPCC checks tpcc:; hostsOK says the hosts expanded cleanly, so
// that their racks can be compared with the partitions.
func validateTPCC(ps *problems, p *Plan, hostsOK bool) {
	t := &p.TPCC
	// W is what the checks below compare against: 0 when out of bounds.
	W := t.Warehouses
	if t.Warehouses <= 0 {
		ps.at(p.nodeOr(&t.Warehouses), "tpcc.warehouses: want a positive number of warehouses")
	} else if !checkRange(ps, p.node(&t.Warehouses), "tpcc.warehouses", t.Warehouses, 1, maxWarehouses) {
		W = 0
	}
	for _, f := range []struct {
		v    *int
		name string
		hi   int
	}{
		{&t.Workers, "workers", maxWorkers}, {&t.Conns, "conns", maxConcurrency},
		{&t.LoadConcurrency, "load_concurrency", maxConcurrency}, {&t.Ulimit, "ulimit", maxUlimit},
	} {
		checkRange(ps, p.nodeOr(f.v), "tpcc."+f.name, *f.v, 0, f.hi)
	}
	for _, f := range []struct {
		d    *Duration
		name string
	}{
		{&t.Ramp, "ramp"}, {&t.Duration, "duration"}, {&t.AllocateRamp, "allocate_ramp"}, {&t.PartitionRun, "partition_run"},
	} {
		checkDuration(ps, p.nodeOr(f.d), "tpcc."+f.name, *f.d, maxDuration)
	}
	if t.ActiveWarehouses != 0 && (t.ActiveWarehouses < 0 || t.ActiveWarehouses > W) {
		ps.at(p.node(&t.ActiveWarehouses), "tpcc.active_warehouses: %d is outside 1..%d", t.ActiveWarehouses, W)
	}
	if t.Partitions < 0 {
		ps.at(p.node(&t.Partitions), "tpcc.partitions: must not be negative")
	}
	if t.Partitions > W && W > 0 {
		ps.at(p.node(&t.Partitions), "tpcc.partitions: %d partitions for %d warehouses (need warehouses >= partitions)", t.Partitions, W)
	}
	if t.Partitions > maxPartitions {
		ps.at(p.node(&t.Partitions), "tpcc.partitions: %d partitions; at most %d", t.Partitions, maxPartitions)
	}
	if racks := p.Racks(); t.Partitions > 0 && p.Flavor == Cockroach && hostsOK {
		switch {
		case racks == 0:
			ps.at(p.node(&t.Partitions), "tpcc.partitions: partitions are pinned to racks, but no node has a rack")
		case t.Partitions != racks:
			ps.at(p.node(&t.Partitions), "tpcc.partitions: %d partitions for %d racks; partition i is pinned to rack i, so they must match", t.Partitions, racks)
		}
	}
	validateFidelity(ps, p)
	if g := t.Gateways; g != 0 {
		switch {
		case p.Flavor != Cockroach:
			ps.at(p.node(&t.Gateways), "tpcc.gateways: the cockroach flavor's; a %s run connects to its primary", p.Flavor)
		case g < 0 || (hostsOK && g > len(p.Nodes)):
			ps.at(p.node(&t.Gateways), "tpcc.gateways: %d of %d nodes; want 1 to %d, or 0 for every node", g, len(p.Nodes), len(p.Nodes))
		case t.Partitions > 1:
			ps.at(p.node(&t.Gateways), "tpcc.gateways: with partitions each workload host lists its own partitions' nodes; leave gateways out")
		}
	}
	if t.Wait != "" {
		// The driver's own parser (--wait), so that what validates runs.
		if f, err := runspec.ParseWait(t.Wait); err != nil || f > maxWaitFactor {
			ps.at(p.node(&t.Wait), "tpcc.wait: want true, false or a factor from 0 to %d such as 0.5, got %q", maxWaitFactor, t.Wait)
		}
	}
	if !planName.MatchString(t.Database) || len(t.Database) > maxIdentifierLen {
		ps.at(p.node(&t.Database), "tpcc.database: %q is not a plain database name (letters, digits, . _ -; at most %d bytes)", t.Database, maxIdentifierLen)
	}
	if P := t.Partitions; P > 1 && W > 0 {
		// Each partition needs an active warehouse: its workers pick
		// warehouses among its own (the run stage divides by them).
		if t.ActiveWarehouses > 0 && t.ActiveWarehouses < P {
			ps.at(p.node(&t.ActiveWarehouses), "tpcc.active_warehouses: %d for %d partitions; each partition needs at least one active warehouse", t.ActiveWarehouses, P)
		}
		if sw := t.Sweep; sw != nil && sw.Flag == "active-warehouses" {
			for _, v := range sw.Values {
				if v > 0 && v < P {
					ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d active warehouses for %d partitions; each partition needs at least one", v, P)
					break
				}
			}
		}
		if sr := t.Search; sr != nil && sr.Min > 0 && sr.Min < P {
			ps.at(p.nodeOr(sr), "tpcc.search.min: %d active warehouses for %d partitions; each partition needs at least one", sr.Min, P)
		}
	}
	if !histName.MatchString(t.Histograms) {
		ps.at(p.node(&t.Histograms), "tpcc.histograms: want a file name with {n} for the host number, e.g. workload{n}.histogram.ndjson")
	}
	if t.Repeat < 0 || t.Repeat > 100 {
		ps.at(p.node(&t.Repeat), "tpcc.repeat: want 1..100 runs, got %d", t.Repeat)
	}
	if sw := t.Sweep; sw != nil {
		switch sw.Flag {
		case "workers":
			if t.Wait != "false" && t.Wait != "0" {
				ps.at(p.node(&sw.Flag), "tpcc.sweep: workers are swept in no-wait mode; set tpcc.wait: \"false\"")
			}
		case "active-warehouses":
		default:
			ps.at(p.nodeOr(&sw.Flag), "tpcc.sweep.flag: want workers or active-warehouses, got %q", sw.Flag)
		}
		if len(sw.Values) == 0 {
			ps.at(p.nodeOr(sw), "tpcc.sweep.values: list the values to run")
		}
		if len(sw.Values) > maxSweep {
			ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d values; at most %d", len(sw.Values), maxSweep)
		}
		seen := map[int]bool{}
		for _, v := range sw.Values {
			switch {
			case v <= 0:
				ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d is not positive", v)
			case seen[v]:
				ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d is listed twice", v)
			case sw.Flag == "active-warehouses" && v > W:
				ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d active warehouses of %d", v, W)
			case v > maxWorkers:
				ps.at(p.node(&sw.Values), "tpcc.sweep.values: %d is above %d", v, maxWorkers)
			}
			seen[v] = true
		}
	}
	if sr := t.Search; sr != nil {
		switch {
		case t.Sweep != nil || t.Repeat > 1:
			ps.at(p.nodeOr(sr), "tpcc.search: a search is its own series of runs; drop sweep and repeat")
		case sr.Min < 1 || sr.Max > W || sr.Min > sr.Max:
			ps.at(p.nodeOr(sr), "tpcc.search: want 1 <= min <= max <= warehouses (%d), got %d..%d", W, sr.Min, sr.Max)
		case sr.Resolution < 0 || sr.Resolution > W:
			ps.at(p.node(&sr.Resolution), "tpcc.search.resolution: want 0..warehouses (%d), got %d", W, sr.Resolution)
		}
	}
	// Each round is a step per workload host: keep the compiled plan to
	// a size a dry run can list.
	rounds := max(1, t.Repeat)
	if t.Sweep != nil {
		rounds *= max(1, len(t.Sweep.Values))
	}
	if steps := rounds * len(p.Workload); steps > maxRoundSteps {
		ps.at(p.nodeOr(t), "tpcc: %d measured runs on %d workload hosts make %d run steps; at most %d", rounds, len(p.Workload), steps, maxRoundSteps)
	}
}

// validateCRUD checks crud: and that the stages fit.
func validateCRUD(ps *problems, p *Plan) {
	c := &p.CRUD
	// The bounds keep hosts × goroutines × records (the key offsets) far
	// from overflowing.
	for _, f := range []struct {
		v    *int
		name string
		hi   int
	}{{&c.Goroutines, "goroutines", 100_000}, {&c.Records, "records", 100_000_000}, {&c.SelectRepeat, "select_repeat", 1_000_000}, {&c.ManyRepeat, "many_repeat", 1_000_000}} {
		switch {
		case *f.v < 0:
			ps.at(p.node(f.v), "crud.%s: must be positive", f.name)
		case *f.v > f.hi:
			ps.at(p.node(f.v), "crud.%s: %d is above %d", f.name, *f.v, f.hi)
		}
	}
	if !settingName.MatchString(c.Table) {
		ps.at(p.node(&c.Table), "crud.table: %q is not a plain table name", c.Table)
	} else if err := crud.CheckTable(c.Table); err != nil {
		// The driver's own rule, so that what validates runs.
		ps.at(p.node(&c.Table), "crud.table: %v", err)
	}
	for i, s := range p.Stages {
		switch s {
		case "import", "partition", "allocate":
			ps.at(seqItem(p.nodeOr(&p.Stages), i), "stages: %s is a TPC-C stage; benchmark: crud runs preflight, install, start, init, configure, swap, run, collect, merge", s)
		}
	}
}

// checkPartitions: every partition (assigned by Normalize, or pinned in
// the plan) is driven by exactly one workload host.
func checkPartitions(ps *problems, p *Plan) {
	P := p.TPCC.Partitions
	if P != 0 && (P < 0 || P > maxPartitions || P > max(p.TPCC.Warehouses, 1)) {
		return // reported by validateTPCC
	}
	if P != 0 && (P < 0 || P > maxPartitions || P > max(p.TPCC.Warehouses, 1)) {
		return // reported by validateTPCC
	}
	if P == 0 || len(p.Workload) == 0 {
		for i := range p.Workload {
			if p.Workload[i].Pinned {
				ps.at(p.node(&p.Workload[i].spec.Partitions), "workload host %s: partitions given but tpcc.partitions is not set", p.Workload[i].Name)
			}
		}
		return
	}
	owner := make([]string, P)
	pinned := false
	for _, h := range p.Workload {
		pinned = pinned || h.Pinned
	}
	for i := range p.Workload {
		h := &p.Workload[i]
		for _, part := range h.Partitions {
			at := p.node(&h.spec.Partitions)
			switch {
			case part < 0 || part >= P:
				ps.at(at, "workload host %s: partition %d is outside 0..%d", h.Name, part, P-1)
			case owner[part] != "":
				ps.at(at, "workload host %s: partition %d is also assigned to %s", h.Name, part, owner[part])
			default:
				owner[part] = h.Name
			}
		}
	}
	var missing []string
	for part, o := range owner {
		if o == "" {
			missing = append(missing, strconv.Itoa(part))
		}
	}
	if len(missing) > 0 {
		ps.at(p.nodeOr(&p.WorkGroups), "workload: partition%s %s assigned to no workload host", map[bool]string{true: "s", false: ""}[len(missing) > 1], strings.Join(missing, ", ")+map[bool]string{true: " are", false: " is"}[len(missing) > 1])
	}
	for _, h := range p.Workload {
		if len(h.Partitions) == 0 && pinned {
			ps.at(p.node(&h.spec.Name), "workload host %s: drives no partition", h.Name)
		}
	}
}

// maxWaitFactor bounds tpcc.wait: a factor stretches the spec's keying and
// think times (clause 5.2.5); a hundred times them is no benchmark.
const maxWaitFactor = 100

// maxIdentifierLen is PostgreSQL's NAMEDATALEN-1: a longer database name
// is cut by the server, not refused.
const maxIdentifierLen = 63

// checkRuns puts every distinct measured run of every workload host to
// the embedded driver's own check (runspec.Check: what `benchrig tpcc run`
// refuses before it connects), so that a plan the run stage would fail
// on, after hours of import, is refused here. The configuration is the
// one the run stage's flags give (stages.runConfig).
func checkRuns(ps *problems, p *Plan) {
	t := &p.TPCC
	if p.Benchmark != "tpcc" || t.Driver == DriverWorkload || len(p.Workload) == 0 || t.Warehouses < 1 {
		return
	}
	wait := 1.0
	if t.Wait != "" {
		var err error
		if wait, err = runspec.ParseWait(t.Wait); err != nil {
			return // reported
		}
	}
	type key struct{ active, workers int }
	seen := map[key]bool{}
	var rounds []key
	add := func(active, workers int) {
		k := key{active, workers}
		if !seen[k] {
			seen[k] = true
			rounds = append(rounds, k)
		}
	}
	for _, rd := range p.Rounds() {
		active := rd.ActiveWarehouses(p)
		if t.Search != nil {
			active = t.Warehouses
		}
		add(active, rd.Workers(p))
	}
	if sr := t.Search; sr != nil {
		add(sr.Min, t.Workers)
		add(sr.Max, t.Workers)
	}
	for _, rd := range rounds {
		for _, h := range p.Workload {
			cfg := runspec.Run{Warehouses: t.Warehouses, Active: rd.active,
				Partitions: t.Partitions, Workers: rd.workers, Conns: t.Conns, Wait: wait, Duration: t.Duration.Std()}
			if t.Partitions > 0 && len(p.Workload) > 1 || h.Pinned {
				cfg.Affinity = h.Partitions
			}
			if err := runspec.Check(cfg); err != nil {
				what := fmt.Sprintf("%d active warehouses", rd.active)
				if rd.workers > 0 {
					what += fmt.Sprintf(", %d workers", rd.workers)
				}
				ps.at(p.nodeOr(t), "tpcc: the driver would refuse the run on workload host %s (%s): %v", h.Name, what, err)
				return // one is enough: the others say the same
			}
		}
	}
}
