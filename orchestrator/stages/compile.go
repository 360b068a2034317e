package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// Options change how a plan is compiled.
type Options struct {
	// Only, From and Until select stages (names from StageNames).
	Only        []string
	From, Until string
	// SkipPreflight leaves the preflight stage out.
	SkipPreflight bool
	// DriverPath is the local benchrig binary uploaded to workload hosts
	// when the plan names none (default: this executable).
	DriverPath string
}

// Compile turns a validated plan into its ordered stages. It connects
// nowhere and reads no secret: the same stages are printed by --dry-run
// and executed by run.
func Compile(p *plan.Plan, opt Options) ([]Stage, error) {
	names, err := selectStages(p.Stages, opt)
	if err != nil {
		return nil, err
	}
	var f flavor
	switch p.Flavor {
	case plan.Cockroach:
		f = cockroachFlavor{p}
	case plan.Postgres:
		f = postgresFlavor{p}
	default:
		return nil, fmt.Errorf("flavor %q: not compiled", p.Flavor)
	}
	c := &compiler{p: p, f: f, opt: opt}
	var stages []Stage
	for _, name := range names {
		st := Stage{Name: name}
		switch name {
		case "preflight":
			c.preflight(&st)
		case "install":
			c.install(&st)
		case "start":
			f.start(&st)
		case "init":
			f.init(&st)
		case "configure":
			f.configure(&st)
		case "import":
			c.importData(&st)
		case "partition":
			f.partition(&st, c)
		case "swap":
			st.Serial = true
			f.swap(&st)
		case "allocate":
			c.tpccRun(&st, "allocate", p.TPCC.AllocateRamp, plan.Duration(time.Millisecond), false)
		case "run":
			switch {
			case p.Benchmark == "crud":
				c.crudRun(&st)
			case p.TPCC.Search != nil:
				if err := c.searchRun(&st); err != nil {
					return nil, err
				}
			default:
				c.tpccRun(&st, "run", p.TPCC.Ramp, p.TPCC.Duration, true)
			}
		case "collect":
			c.collect(&st)
		case "merge":
			c.merge(&st)
		}
		stages = append(stages, st)
	}
	return stages, nil
}

// selectStages applies --only/--from/--until to the plan's stage list.
func selectStages(planned []string, opt Options) ([]string, error) {
	check := func(flag, s string) error {
		if !slices.Contains(plan.StageNames, s) {
			return fmt.Errorf("%s %s: unknown stage (known: %s)", flag, s, strings.Join(plan.StageNames, ", "))
		}
		if !slices.Contains(planned, s) {
			return fmt.Errorf("%s %s: the plan has no such stage (it has: %s)", flag, s, strings.Join(planned, ", "))
		}
		return nil
	}
	out := planned
	if opt.SkipPreflight {
		out = slices.DeleteFunc(slices.Clone(out), func(s string) bool { return s == "preflight" })
	}
	if len(opt.Only) > 0 {
		for _, s := range opt.Only {
			if err := check("--only", s); err != nil {
				return nil, err
			}
		}
		only := out
		out = nil
		for _, s := range only {
			if slices.Contains(opt.Only, s) {
				out = append(out, s)
			}
		}
	}
	if opt.From != "" {
		if err := check("--from", opt.From); err != nil {
			return nil, err
		}
		out = out[slices.Index(out, opt.From):]
	}
	if opt.Until != "" {
		if err := check("--until", opt.Until); err != nil {
			return nil, err
		}
		i := slices.Index(out, opt.Until)
		if i < 0 {
			return nil, fmt.Errorf("--until %s comes before --from %s", opt.Until, opt.From)
		}
		out = out[:i+1]
	}
	return out, nil
}

// flavor holds what differs between databases.
type flavor interface {
	installNode(st *Stage, h plan.Host)
	start(st *Stage)
	init(st *Stage)
	configure(st *Stage)
	partition(st *Stage, c *compiler)
	swap(st *Stage)
	// urls are the connection strings a workload host is given.
	urls() []string
	// runURLs are the connection strings workload host h runs against.
	runURLs(h plan.Host) []string
	// initFlags are extra flags for `benchrig tpcc init` (partitioning).
	initFlags() []string
}

type compiler struct {
	p   *plan.Plan
	f   flavor
	opt Options
	// template: the run being compiled is a search iteration, whose
	// --active-warehouses is SearchValue.
	template bool
}

// install puts the database binary on every node and the driver on every
// workload host, creating the work directories first.
func (c *compiler) install(st *Stage) {
	for _, h := range c.p.Nodes {
		st.add(Step{Host: h.Name, Kind: Exec, What: "create work directory",
			Cmd: remote.Cmd{Args: []string{"mkdir", "-p", h.Dir + "/jobs"}}})
		c.f.installNode(st, h)
	}
	for _, h := range c.p.Workload {
		st.add(Step{Host: h.Name, Kind: Exec, What: "create work directory",
			Cmd: remote.Cmd{Args: []string{"mkdir", "-p", h.Dir + "/jobs"}}})
		st.add(installBinary(h, c.driver(), h.Dir+"/benchrig", false)...)
	}
}

// driver is the benchrig binary for workload hosts.
func (c *compiler) driver() plan.Binary {
	if c.p.Binaries.Driver != nil {
		return *c.p.Binaries.Driver
	}
	d := c.opt.DriverPath
	if d == "" {
		d, _ = os.Executable()
	}
	return plan.Binary{Path: d}
}

// installScript downloads a URL on the host, checks its sha256, and
// installs it atomically; it does nothing when the destination already has
// the digest. Values arrive as positional parameters, never in the text.
const installScript = `set -eu
url=$1 sum=$2 dest=$3 member=$4
if [ -z "$member" ] && [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status - 2>/dev/null; then
  echo "already installed: $dest"; exit 0
fi
if [ -n "$member" ] && [ -f "$dest" ] && [ "$(cat "$dest.archive-sha256" 2>/dev/null)" = "$sum" ]; then
  echo "already installed from this archive: $dest"; exit 0
fi
tmp="$dest.download.$$"
trap 'rm -f "$tmp" "$tmp.x"' EXIT
curl -fsSL --retry 3 -o "$tmp" "$url"
echo "$sum  $tmp" | sha256sum -c --quiet -
if [ -n "$member" ]; then tar -xzf "$tmp" -O "$member" > "$tmp.x"; mv "$tmp.x" "$tmp"; fi
chmod 755 "$tmp"
mv "$tmp" "$dest"
if [ -n "$member" ]; then echo "$sum" > "$dest.archive-sha256"; fi`

// installBinary returns the steps that put b at dest on h.
func installBinary(h plan.Host, b plan.Binary, dest string, sudo bool) []Step {
	if b.URL != "" {
		args := []string{"sh", "-c", installScript, "sh", b.URL, b.SHA256, dest, b.Member}
		if sudo {
			args = append([]string{"sudo", "-n"}, args...)
		}
		what := "download " + path.Base(dest)
		if b.Member != "" {
			// The digest is the archive's: a marker next to the installed
			// file records which archive it came from.
			what += " from archive"
		}
		return []Step{{Host: h.Name, Kind: Exec, What: what, Cmd: remote.Cmd{Args: args}}}
	}
	return []Step{{Host: h.Name, Kind: Put, What: "upload " + path.Base(dest),
		Transfer: remote.Transfer{Local: b.Path, Remote: dest, Mode: 0o755, SHA256: b.SHA256}}}
}

// importData creates the schema from the first workload host, then loads
// the warehouses: from that host, or split across all workload hosts by
// warehouse range when tpcc.split_load is set.
func (c *compiler) importData(st *Stage) {
	p := c.p
	first := p.Workload[0]
	urls := c.f.urls()
	initArgs := append([]string{"./benchrig", "tpcc", "init", "--warehouses", strconv.Itoa(p.TPCC.Warehouses)}, c.f.initFlags()...)
	st.add(Step{Host: first.Name, Kind: Exec, What: "create the TPC-C schema",
		Cmd: remote.Cmd{Dir: first.Dir, Args: append(initArgs, urls[0])}})
	st.then()
	loaders := p.Workload[:1]
	if p.TPCC.SplitLoad {
		loaders = p.Workload
	}
	W := p.TPCC.Warehouses
	for i, h := range loaders {
		from, to := i*W/len(loaders)+1, (i+1)*W/len(loaders)
		if from > to {
			continue
		}
		args := []string{"./benchrig", "tpcc", "load", "--warehouses", strconv.Itoa(W)}
		if len(loaders) > 1 {
			args = append(args, "--from", strconv.Itoa(from), "--to", strconv.Itoa(to))
		}
		if p.TPCC.LoadConcurrency > 0 {
			args = append(args, "--concurrency", strconv.Itoa(p.TPCC.LoadConcurrency))
		}
		args = append(args, urls[i%len(urls)])
		st.add(Step{Host: h.Name, Kind: Job, What: fmt.Sprintf("load warehouses %d-%d", from, to),
			JobName: "import", JobDir: h.Dir + "/jobs", Cmd: remote.Cmd{Dir: h.Dir, Args: args}})
	}
}

// tpccRun runs `benchrig tpcc run` on every workload host with its
// partitions. allocate (the 100k recipe's long ramp with a 1ms duration)
// and run differ in timing and in writing histograms.
func (c *compiler) tpccRun(st *Stage, what string, ramp, duration plan.Duration, histograms bool) {
	p := c.p
	rounds := []plan.Round{{}}
	if histograms {
		rounds = p.Rounds()
	}
	for _, rd := range rounds {
		c.runRound(st, what, ramp, duration, histograms, rd)
		st.then()
	}
}

// runRound adds one measured run (or the allocation) on every workload
// host, at one instant.
func (c *compiler) runRound(st *Stage, what string, ramp, duration plan.Duration, histograms bool, rd plan.Round) {
	p := c.p
	if histograms {
		// Before the common start instant is chosen: every host is
		// connected, and its clock is compared with this machine's.
		for _, h := range p.Workload {
			st.add(clockProbe(h.Name))
		}
		st.then()
	}
	for i, h := range p.Workload {
		args := []string{"./benchrig", "tpcc", "run"}
		if p.TPCC.Partitions > 0 {
			args = append(args, "--partitions", strconv.Itoa(p.TPCC.Partitions))
		}
		args = append(args, "--warehouses", strconv.Itoa(p.TPCC.Warehouses))
		if a := rd.ActiveWarehouses(p); rd.Flag == "active-warehouses" || a != p.TPCC.Warehouses || p.TPCC.ActiveWarehouses > 0 {
			active := strconv.Itoa(a)
			if c.template {
				active = SearchValue
			}
			args = append(args, "--active-warehouses", active)
		}
		if p.TPCC.Partitions > 0 && len(p.Workload) > 1 || h.Pinned {
			args = append(args, "--partition-affinity", joinInts(h.Partitions))
		}
		args = append(args, "--ramp", ramp.String(), "--duration", duration.String())
		if p.TPCC.Wait != "" {
			args = append(args, "--wait="+p.TPCC.Wait)
		}
		if w := rd.Workers(p); w > 0 {
			args = append(args, "--workers", strconv.Itoa(w))
		}
		if p.TPCC.Conns > 0 {
			args = append(args, "--conns", strconv.Itoa(p.TPCC.Conns))
		}
		if histograms {
			args = append(args, "--histograms", plan.HistogramFile(p, i, rd))
		}
		args = append(args, p.TPCC.Extra...)
		urls := c.f.runURLs(h)
		args = append(args, urls...)
		name := what
		if rd.Label != "" {
			name += "-" + rd.Label
		}
		st.add(Step{Host: h.Name, Kind: Job, What: strings.TrimSpace(what + " TPC-C " + rd.Label), Positional: len(urls), CheckExit: tpccCheckExit,
			JobName: name, JobDir: h.Dir + "/jobs", StartAt: histograms && len(p.Workload) > 1,
			Cmd: remote.Cmd{Dir: h.Dir, Args: withUlimit(p.TPCC.Ulimit, args)}})
	}

}

// crudRun runs the seed's CRUD benchmark on every workload host at the
// same time, each on its own key range of the shared table.
func (c *compiler) crudRun(st *Stage) {
	p, cr := c.p, c.p.CRUD
	for i, h := range p.Workload {
		args := []string{"./benchrig", "crud",
			"--goroutines", strconv.Itoa(cr.Goroutines), "--records", strconv.Itoa(cr.Records),
			"--select-repeat", strconv.Itoa(cr.SelectRepeat), "--many-repeat", strconv.Itoa(cr.ManyRepeat),
			"--table", cr.Table, "--key-offset", strconv.Itoa(i * cr.Goroutines * cr.Records),
			"--label", h.Name, "--json", crudFile(i)}
		urls := c.f.urls()
		args = append(args, urls...)
		st.add(Step{Host: h.Name, Kind: Job, What: "run crud", Positional: len(urls), CheckExit: tpccCheckExit,
			JobName: "crud", JobDir: h.Dir + "/jobs", Cmd: remote.Cmd{Dir: h.Dir, Args: withUlimit(p.TPCC.Ulimit, args)}})
	}
}

// crudFile is workload host i's crud result file.
func crudFile(i int) string { return fmt.Sprintf("crud%d.json", i+1) }

// tpccCheckExit is `benchrig tpcc run`'s exit status for a run that
// finished but failed an audit check.
const tpccCheckExit = 30

// withUlimit raises the open-files limit before running args, as the
// recipes' `ulimit -n N && ./workload ...`; the limit and the command are
// positional parameters of a constant script.
func withUlimit(n int, args []string) []string {
	if n == 0 {
		return args
	}
	return append([]string{"sh", "-c", ulimitScript, "sh", strconv.Itoa(n)}, args...)
}

const ulimitScript = `ulimit -n "$1" && shift && exec "$@"`

// collect downloads each workload host's histogram file into the run
// directory's results/ folder.
func (c *compiler) collect(st *Stage) {
	if c.p.TPCC.Search != nil {
		st.Notes = append(st.Notes, "the search collected each iteration's histograms")
		return
	}
	if c.p.Benchmark == "crud" {
		for i, h := range c.p.Workload {
			f := crudFile(i)
			st.add(Step{Host: h.Name, Kind: Get, What: "download " + f,
				Transfer: remote.Transfer{Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f}})
		}
		return
	}
	for _, rd := range c.p.Rounds() {
		for i, h := range c.p.Workload {
			f := plan.HistogramFile(c.p, i, rd)
			st.add(Step{Host: h.Name, Kind: Get, What: "download " + f,
				Transfer: remote.Transfer{Remote: h.Dir + "/" + f, Local: "results/" + h.Name + "/" + f}})
		}
	}
}

// merge combines the collected histograms on this machine, as the
// recipe's `workload debug tpcc-merge-results`.
func (c *compiler) merge(st *Stage) {
	if c.p.TPCC.Search != nil {
		st.Notes = append(st.Notes, "the search merged and checked each iteration")
		return
	}
	if c.p.Benchmark == "crud" {
		args := []string{"benchrig", "crud", "merge"}
		for i, h := range c.p.Workload {
			args = append(args, "results/"+h.Name+"/"+crudFile(i))
		}
		st.add(Step{Host: LocalHost, Kind: Local, What: "merge crud results", Cmd: remote.Cmd{Args: args}})
		return
	}
	for _, rd := range c.p.Rounds() {
		args := []string{"benchrig", "tpcc", "merge", "--warehouses", strconv.Itoa(rd.ActiveWarehouses(c.p))}
		for i, h := range c.p.Workload {
			args = append(args, "results/"+h.Name+"/"+plan.HistogramFile(c.p, i, rd))
		}
		st.add(Step{Host: LocalHost, Kind: Local, What: strings.TrimSpace("merge histograms " + rd.Label),
			Cmd: remote.Cmd{Args: args}})
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// sqlLiteral quotes s as an SQL string literal: the only way a plan value
// enters SQL text.
func sqlLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// sqlValue writes a setting value as the recipes do: numbers bare, the
// rest as string literals.
func sqlValue(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXeEnN") {
		return v
	}
	if v == "true" || v == "false" {
		return v
	}
	return sqlLiteral(v)
}
