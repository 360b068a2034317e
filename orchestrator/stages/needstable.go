package stages

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/benchrig/benchrig/crdb/fixtures"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

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
		host       string
		row        needRow
		all, sameN bool
	}
	var order []string
	best := map[string]*most{}
	for _, h := range hosts {
		for _, r := range rows(h) {
			m, ok := best[r.need]
			switch {
			case !ok:
				order = append(order, r.need)
				best[r.need] = &most{host: h, row: r, all: true, sameN: true}
			case r.text != m.row.text:
				m.all = false
				m.sameN = m.sameN && r.n == m.row.n
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
		switch {
		case !m.all && m.sameN:
			text += " (" + m.host + "'s; each host its own)"
		case !m.all:
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
		step = "no"
	}
	rows := []needRow{{"connections in", int64(nc.Conns), strconv.Itoa(nc.Conns),
		"the " + step + " step" + map[bool]string{true: "s"}[strings.Contains(step, " and ")] + ": every workload host's connections to this node at once; limit: " + nc.Limit}}
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

// humanBytes renders bytes in decimal units (the recipes' TB and GB),
// binary ones for an exact power of two (the release's MiB).
func humanBytes(b int64) string {
	if b > 0 && b%(1<<20) == 0 && b < 1<<40 {
		if b%(1<<30) == 0 {
			return fmt.Sprintf("%d GiB", b>>30)
		}
		return fmt.Sprintf("%d MiB", b>>20)
	}
	return fixtures.HumanBytes(b)
}
