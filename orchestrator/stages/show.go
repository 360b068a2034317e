package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Show writes the expanded topology of a plan: every host with its
// address, rack and ports, the partition each workload host drives, and
// the connection strings the workload uses.
func Show(w io.Writer, p *plan.Plan) error {
	fmt.Fprintf(w, "plan %s (%s): %s\n", p.Name, p.Flavor, p.Description)
	fmt.Fprintf(w, "%d database node%s", len(p.Nodes), plural(len(p.Nodes)))
	if r := p.Racks(); r > 0 {
		fmt.Fprintf(w, " in %d racks", r)
	}
	fmt.Fprintf(w, ", %d workload host%s\n\n", len(p.Workload), plural(len(p.Workload)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tROLE\tSSH\tADDR\tRACK\tSQL\tHTTP\tDIR\tPARTITIONS")
	dash := func(n int) string {
		if n <= 0 {
			return "-"
		}
		return strconv.Itoa(n)
	}
	for _, h := range p.Nodes {
		rack := "-"
		if h.Rack >= 0 {
			rack = strconv.Itoa(h.Rack)
		}
		fmt.Fprintf(tw, "%s\tnode\t%s\t%s\t%s\t%d\t%s\t%s\t-\n", h.Name, sshAddr(h), h.Addr, rack, h.SQLPort, dash(h.HTTPPort), h.Dir)
	}
	for _, h := range p.Workload {
		parts := "-"
		if len(h.Partitions) > 0 {
			parts = joinInts(h.Partitions)
		}
		fmt.Fprintf(tw, "%s\tworkload\t%s\t-\t-\t-\t-\t%s\t%s\n", h.Name, sshAddr(h), h.Dir, parts)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := p.TPCC
	fmt.Fprintf(w, "\ntpcc: %d warehouses", t.Warehouses)
	if t.ActiveWarehouses > 0 {
		fmt.Fprintf(w, " (%d active)", t.ActiveWarehouses)
	}
	if t.Partitions > 0 {
		fmt.Fprintf(w, ", %d partitions", t.Partitions)
	}
	fmt.Fprintf(w, ", ramp %s, duration %s", t.Ramp, t.Duration)
	if t.Ulimit > 0 {
		fmt.Fprintf(w, ", ulimit -n %d", t.Ulimit)
	}
	fmt.Fprintln(w)
	showFidelity(w, p)
	if p.License != nil {
		fmt.Fprintf(w, "license: organization %q, key from %s (not read here: validate and run read and check it; never shown)\n", p.License.Organization, p.License.Key)
	}
	if len(p.Settings.Ordered()) > 0 {
		fmt.Fprintln(w, "settings:")
		for _, s := range p.Settings.Ordered() {
			fmt.Fprintf(w, "  %s = %s\n", s.Name, s.Value)
		}
	}
	fmt.Fprintf(w, "stages: %s\n", strings.Join(p.Stages, ", "))
	var f flavor = cockroachFlavor{p}
	if p.Flavor == plan.Postgres {
		f = postgresFlavor{p: p}
	}
	fmt.Fprintln(w, "addrs (what workload hosts connect to):")
	urls := f.urls()
	if p.TPCC.Driver == plan.DriverWorkload {
		// workload's URLs name no database: it adds its --db.
		urls = urls[:0:0]
		for _, n := range p.Nodes {
			urls = append(urls, workloadURL(n))
		}
	}
	for _, u := range urls {
		fmt.Fprintf(w, "  %s\n", u)
	}
	return nil
}

func sshAddr(h plan.Host) string {
	s := h.SSH
	if h.User != "" {
		s = h.User + "@" + s
	}
	if h.Port != 22 {
		s += ":" + strconv.Itoa(h.Port)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// showFidelity says which release's workload behaviour the plan follows,
// how it imports and which driver runs it.
func showFidelity(w io.Writer, p *plan.Plan) {
	t := p.TPCC
	if p.Flavor == plan.Cockroach {
		release := "asked from the server at run time (set tpcc.cockroach_version to fix it)"
		if b, ok := p.CockroachBuild(); ok {
			rel := b.Release()
			release = fmt.Sprintf("%s (tpcc generator %s, statistics for %d tables, warehouses 0..%d", b, rel.Generator, len(rel.StatsTables), t.Warehouses-1)
			if rel.URLPerAffinity {
				release += ", URL j serves partition affinity[j])"
			} else {
				release += ", URL j serves partition j % partitions)"
			}
		}
		fmt.Fprintf(w, "cockroach release: %s\n", release)
	}
	how := map[string]string{
		plan.ImportIMPORT: "IMPORT from workload:// sources, every node generating its share (tpcc import)",
		plan.ImportCopy:   "COPY from the workload hosts (tpcc load), import.hosts " + t.Import.Hosts,
	}[t.Import.Method]
	if t.Driver == plan.DriverWorkload {
		how = "workload fixtures import"
	}
	fmt.Fprintf(w, "import: %s\n", how)
	driver := "benchrig (embedded driver)"
	if t.Driver == plan.DriverWorkload {
		driver = "workload (the cluster's own binary as `cockroach workload`, the recipe's own commands)"
		if p.Binaries.Workload != nil {
			driver = "workload (binaries.workload, the recipe's own commands)"
		}
	}
	fmt.Fprintf(w, "driver: %s\n", driver)
	if t.Partitions > 0 && p.Flavor == plan.Cockroach {
		fmt.Fprintf(w, "partitioning: %s", t.PartitionStrategy)
		if len(t.Zones) > 0 {
			fmt.Fprintf(w, ", zones %s", strings.Join(t.Zones, ","))
		}
		fmt.Fprintln(w)
	}
}
