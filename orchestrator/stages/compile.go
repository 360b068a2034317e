package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	// Wipe makes the teardown stage remove stores and work directories.
	Wipe bool
}

// Compile turns a validated plan into its ordered stages. It connects
// nowhere and reads no secret: the same stages are printed by --dry-run
// and executed by run.
func Compile(p *plan.Plan, opt Options) ([]Stage, error) {
	names, err := selectStages(p.Stages, opt)
	if err != nil {
		return nil, err
	}
	c := &compiler{p: p, opt: opt}
	var f flavor
	switch p.Flavor {
	case plan.Cockroach:
		f = cockroachFlavor{p}
	case plan.Postgres:
		// The start stage sizes the servers from the run's needs.
		f = postgresFlavor{p: p, c: c}
	default:
		return nil, fmt.Errorf("flavor %q: not compiled", p.Flavor)
	}
	c.f = f
	w, err := workloadFor(c)
	if err != nil {
		return nil, err
	}
	c.w = w
	var stages []Stage
	for _, name := range names {
		st := Stage{Name: name}
		switch name {
		case "preflight":
			c.preflight(&st, w)
		case "install":
			c.install(&st)
		case "start":
			f.start(&st)
		case "init":
			f.init(&st)
		case "configure":
			f.configure(&st)
		case "import":
			w.Load(&st)
		case "partition":
			f.partition(&st, c)
		case "swap":
			st.Serial = true
			f.swap(&st)
		case "allocate":
			w.Allocate(&st)
		case "run":
			if err := w.Run(&st); err != nil {
				return nil, err
			}
		case "collect":
			w.Collect(&st)
		case "merge":
			w.Merge(&st)
		case "teardown":
			if err := c.teardown(&st); err != nil {
				return nil, err
			}
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
	if slices.Contains(opt.Only, "teardown") && !slices.Contains(planned, "teardown") {
		// Teardown is never run by default, so plans rarely list it:
		// --only teardown selects it anyway.
		planned = append(slices.Clone(planned), "teardown")
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
	// stopAll adds teardown's stop of every node, in the order and
	// phases the database's documentation stops a whole cluster.
	stopAll(st *Stage)
}

type compiler struct {
	p   *plan.Plan
	f   flavor
	w   Workload
	opt Options
	// pg is the postgres servers' sizing, once computed (postgresFlavor.server).
	pg *pgServer
	// template: the run being compiled is a search iteration, whose
	// --active-warehouses is SearchValue.
	template bool
}

// install puts the database binary on every node and the driver on every
// workload host, creating the work directories (and cockroach stores)
// first, each marked as benchrig's (mkdirOwnedScript); the nodes get the
// benchrig binary too when the run samples them (benchrig hoststat).
// The benchrig binary crosses the operator's link once (shareBinary).
func (c *compiler) install(st *Stage) {
	var driven []plan.Host // hosts that get the benchrig binary, nodes first
	for _, h := range c.p.Nodes {
		dirs := []string{h.Dir}
		what := "create work directory"
		if c.p.Flavor == plan.Cockroach && h.Store != "" {
			// PostgreSQL's store is made (and marked) by initdb in the
			// start stage: initdb wants it absent or empty.
			dirs = append(dirs, h.Store)
			what += " and store"
		}
		st.add(Step{Host: h.Name, Kind: Exec, What: what, Idempotent: true, Cmd: remote.Cmd{Args: mkdirOwned(c.p, dirs...)}})
		c.f.installNode(st, h)
		if c.samplesHosts() {
			// The host sampler of the run stage (benchrig hoststat).
			driven = append(driven, h)
		}
	}
	for i, h := range c.p.Workload {
		st.add(Step{Host: h.Name, Kind: Exec, What: "create work directory", Idempotent: true,
			Cmd: remote.Cmd{Args: mkdirOwned(c.p, h.Dir)}})
		switch {
		case c.p.TPCC.Driver == plan.DriverWorkload:
			c.workloadInstall(st, h)
		case i == 0 && c.p.TPCC.Import.Method == plan.ImportInit:
			// `cockroach workload init` loads from the first host.
			b, file := workloadBinary(c.p)
			st.add(installBinary(h, b, h.Dir+"/"+file, false)...)
		}
	}
	if len(driven) == 0 && len(c.p.Workload) > 1 && len(c.p.Nodes) > 0 && c.p.Binaries.SharePort > 0 && c.driver().URL == "" {
		// No node runs benchrig, but the first relays it to the
		// workload hosts: one copy over the operator's link, not one each.
		driven = append(driven, c.p.Nodes[0])
	}
	c.shareBinary(st, append(driven, c.p.Workload...), c.driver())
}

// samplesHosts says whether the run stage samples every host (see
// hoststat.go): the TPC-C rounds and crud do; a line search does not, and
// a plan without the run stage needs no sampler on its nodes.
func (c *compiler) samplesHosts() bool {
	return c.p.TPCC.Search == nil && slices.Contains(c.p.Stages, "run")
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
// the digest. Values arrive as positional parameters, never in the text,
// and each program gets "--" before the values it takes as operands: tar
// extracts the member as remote.TarExtractArgs does (a member such as
// "--checkpoint-action=exec=..." is then a name, never an option), and
// validation has already rejected any member that is not a plain relative
// path. curl gets the URL after "--" with --globoff, so "[1-3]" and "{a,b}"
// are literal characters of one URL rather than a pattern of several, and
// --proto/--proto-redir keep it, and any redirect, to http(s) (no file://,
// no scp://). Validation has checked the URL's shape too (validateURL).
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
curl -fsSL --globoff --proto =https,http --proto-redir =https,http --retry 3 -o "$tmp" -- "$url"
echo "$sum  $tmp" | sha256sum -c --quiet -
if [ -n "$member" ]; then tar -xzf "$tmp" -O --no-wildcards -- "$member" > "$tmp.x"; mv -- "$tmp.x" "$tmp"; fi
chmod 755 -- "$tmp"
mv -- "$tmp" "$dest"
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
		// Idempotent: a hash check skips a done install, and the file is
		// downloaded to a temporary name, checked, then renamed.
		return []Step{{Host: h.Name, Kind: Exec, What: what, Idempotent: true, Cmd: remote.Cmd{Args: args}}}
	}
	return []Step{{Host: h.Name, Kind: Put, What: "upload " + path.Base(dest),
		Transfer: remote.Transfer{Local: b.Path, Remote: dest, Mode: 0o755, SHA256: b.SHA256}}}
}

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

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// sqlLiteral quotes s as an SQL string literal: the only way a plan value
// enters SQL text (remote.SQLLiteral, tested against a real server).
func sqlLiteral(s string) string { return remote.SQLLiteral(s) }

// sqlNumber is an SQL numeric literal both CockroachDB and PostgreSQL
// read as one number (Go's ParseFloat also takes 1_000, 0x10 and Inf).
var sqlNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// sqlValue writes a setting value as the recipes do: numbers bare, the
// rest as string literals.
func sqlValue(v string) string {
	if sqlNumber.MatchString(v) {
		return v
	}
	if v == "true" || v == "false" {
		return v
	}
	return sqlLiteral(v)
}
