package plan

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/benchrig/benchrig/configs"
)

// The flavors.
const (
	Cockroach = "cockroach"
	Postgres  = "postgres"
)

// StageNames lists every stage in the order they run.
var StageNames = []string{
	"preflight", "install", "start", "init", "configure", "import", "partition",
	"swap", "allocate", "run", "collect", "merge", "teardown",
}

var (
	fioSize  = regexp.MustCompile(`^[0-9]+[KMG]?$`)
	planName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	hexSHA   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	envVar   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// safePath is what a path on a host may be: pg_ctl writes -D, -l and
	// its own program path into a command line for /bin/sh (in double
	// quotes, where $ and ` still act), and the conf files hold them in
	// single quotes; a path made of these characters means the same to
	// every one of them. Relative paths are under the login's home.
	safePath = regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./+-]*$`)
	// tarMember is a plain relative path inside an archive: no option, no
	// absolute path, no "..", no wildcard.
	tarMember = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*$`)
	// histName is a histogram file name pattern: a plain file name (no
	// '/', no leading '-' or '.') with {n}.
	histName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*\{n\}[A-Za-z0-9_.+-]*$|^\{n\}[A-Za-z0-9_.+-]*$`)
	// jumpHosts is an ssh -J list: [user@]host[:port] hops, IPv6 in [].
	jumpHosts = regexp.MustCompile(`^[A-Za-z0-9_\[][A-Za-z0-9_.@:\[\]%-]*(,[A-Za-z0-9_\[][A-Za-z0-9_.@:\[\]%-]*)*$`)
	// loginName is a POSIX portable user name.
	loginName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
)

// Bounds on the plan's numbers. Each is far above anything published
// (the largest recipe: 100,000 warehouses, 81 nodes, 27 partitions) and
// far below what would exhaust memory or overflow a computation.
const (
	maxHosts       = 10_000
	maxWarehouses  = 10_000_000
	maxPartitions  = 10_000
	maxWorkers     = 10_000_000
	maxConcurrency = 1_000_000
	maxUlimit      = 1 << 30 // Linux caps fs.nr_open there; preflight judges what a host allows
	maxReplicas    = 100
	maxSweep       = 100
	maxDuration    = 30 * 24 * time.Hour
	maxPathLen     = 1024
	maxRoundSteps  = 100_000
	// maxPlanNameLen leaves room in a file name (NAME_MAX 255) for the
	// run directory's time stamp and suffix.
	maxPlanNameLen = 100
)

// maxCompiledBytes bounds what a plan's compiled steps may take in
// memory (CompiledBytes): the 100k recipe's take about 20 MiB by that
// estimate; a plan of a thousand nodes and a thousand workload hosts,
// each run step listing every node's URL, would take gigabytes.
const maxCompiledBytes = 128 << 20

// maxArgvBytes bounds what one of the plan's lists of flags adds to a
// command line.
const maxArgvBytes = 64 << 10

// CompiledBytes estimates, from above, what the plan's compiled steps take
// in memory, before compiling them: a few steps per host and stage, each
// with its argv (the plan's flags and settings), plus every node's URL
// on each workload host's run, allocate and import steps. Validation
// refuses a plan past maxCompiledBytes; a stages test checks that the
// estimate stays above what Compile allocates.
func (p *Plan) CompiledBytes() int {
	flags := 0
	for _, list := range [][]string{p.Start.Flags, p.TPCC.Extra, p.TPCC.Zones} {
		for _, f := range list {
			flags += len(f) + 16
		}
	}
	for _, s := range p.Settings.ordered {
		flags += len(s.Name) + len(s.Value) + 64
	}
	const (
		stepBase     = 2 << 10 // a step's struct, description, argv and log names
		stepsPerHost = 4       // per stage, at most (install, start and wait, ...)
		stepsPerRun  = 4       // per measured run and workload host (run, get, check, merge)
	)
	rounds := len(p.Rounds())
	if p.TPCC.Search != nil {
		rounds += 64 // the search's iterations (it ends by then)
	}
	hosts := len(p.Nodes) + len(p.Workload)
	steps := max(len(p.Stages), 1)*hosts*stepsPerHost + rounds*len(p.Workload)*stepsPerRun
	urlLen := 64 + len(p.TPCC.Database)
	for _, n := range p.Nodes {
		urlLen = max(urlLen, 64+len(n.Addr)+len(n.User)+len(p.TPCC.Database))
	}
	// Each URL is built, joined into the argv and quoted for the dry run:
	// about three copies of it (TestCompiledBytesBoundsCompile measures),
	// on every measured run and the allocation, the ready barrier's notes,
	// and the partitioning run (which names every node's URL).
	urls := 4 * (rounds + 3) * len(p.Workload) * len(p.Nodes) * urlLen
	// Whatever the size, a compile lists the import's and partitioning's
	// statements once (the dry-run's Shows): a few hundred KiB.
	const fixed = 1 << 20
	return fixed + steps*(stepBase+flags) + urls
}

// checkPath reports a host path that cannot be used safely (see safePath).
func checkPath(ps *problems, n *yaml.Node, where, v string) {
	switch {
	case len(v) > maxPathLen:
		ps.at(n, "%s: path longer than %d bytes", where, maxPathLen)
	case strings.HasPrefix(v, "-"):
		ps.at(n, "%s: %q starts with '-' (a program would take it for an option)", where, v)
	case !safePath.MatchString(v):
		ps.at(n, "%s: %q: want a path of letters, digits and . _ + - / (pg_ctl and conf files pass it through a shell and quotes)", where, v)
	}
}

// checkRange reports an int outside lo..hi.
func checkRange(ps *problems, n *yaml.Node, where string, v, lo, hi int) bool {
	if v < lo || v > hi {
		ps.at(n, "%s: %d is outside %d..%d", where, v, lo, hi)
		return false
	}
	return true
}

// checkDuration reports a duration above limit.
func checkDuration(ps *problems, n *yaml.Node, where string, d Duration, limit time.Duration) {
	if d.Std() > limit {
		ps.at(n, "%s: %s is longer than %s", where, d, FormatDuration(limit))
	}
}

// Validate reports every problem of a normalized plan at once, as a
// *PlanError. It is pure: it changes nothing, so it can be asked of any
// plan value, and what it checks is exactly what will run.
func Validate(p *Plan, opts ...Options) error {
	ps := &problems{file: p.File, allow: allowed(opts)}
	validate(ps, p)
	return ps.err()
}

// validate reports every problem of p (normalized) to ps.
func validate(ps *problems, p *Plan) {
	if p.Version != 1 {
		ps.at(p.node(&p.Version), "version: want 1, got %d", p.Version)
	}
	if !planName.MatchString(p.Name) || len(p.Name) > maxPlanNameLen {
		ps.at(p.nodeOr(&p.Name), "name: want at most %d letters, digits, '.', '_' or '-' (it names the run directory), got %q", maxPlanNameLen, p.Name)
	}
	switch p.Flavor {
	case Cockroach, Postgres:
	default:
		ps.at(p.nodeOr(&p.Flavor), "flavor: want %q or %q, got %q", Cockroach, Postgres, p.Flavor)
		return // the rest depends on the flavor
	}
	if p.SSH.Port < 0 || p.SSH.Port > 65535 {
		ps.at(p.node(&p.SSH.Port), "ssh.port: %d is not a port", p.SSH.Port)
	}
	if p.SSH.User != "" && !loginName.MatchString(p.SSH.User) {
		ps.at(p.node(&p.SSH.User), "ssh.user: %q is not a user name", p.SSH.User)
	}
	if p.SSH.JumpHost != "" && !jumpHosts.MatchString(p.SSH.JumpHost) {
		// Each hop is an ssh -J word: no option, no space.
		ps.at(p.node(&p.SSH.JumpHost), "ssh.jump_host: %q: want [user@]host[:port] hops separated by commas (no leading '-')", p.SSH.JumpHost)
	}
	if p.SSH.Concurrency < 0 {
		ps.at(p.node(&p.SSH.Concurrency), "ssh.concurrency: must be positive")
	} else {
		checkRange(ps, p.node(&p.SSH.Concurrency), "ssh.concurrency", p.SSH.Concurrency, 1, 1024)
	}
	if p.SSH.ReconnectBudget < 0 {
		ps.at(p.node(&p.SSH.ReconnectBudget), "ssh.reconnect_budget: must not be negative")
	}
	checkDuration(ps, p.node(&p.SSH.ReconnectBudget), "ssh.reconnect_budget", p.SSH.ReconnectBudget, 24*time.Hour)
	if k := p.SSH.Keepalive.Std(); k != 0 && k < time.Second {
		ps.at(p.node(&p.SSH.Keepalive), "ssh.keepalive: %s is shorter than 1s", p.SSH.Keepalive)
	}
	checkDuration(ps, p.node(&p.SSH.Keepalive), "ssh.keepalive", p.SSH.Keepalive, 10*time.Minute)

	// Normalize expanded the hosts and dropped what it could not use;
	// expanding again is how their problems are found.
	before := len(ps.list)
	expandHosts(ps, p, p.NodeGroups, "nodes", true)
	expandHosts(ps, p, p.WorkGroups, "workload", false)
	if n := len(p.Nodes) + len(p.Workload); n > maxHosts {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes and workload: %d hosts; at most %d", n, maxHosts)
	}
	if len(p.NodeGroups) == 0 {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: the plan has no database nodes")
	}
	hostsOK := len(ps.list) == before
	if hostsOK {
		// Uniqueness and racks are only worth checking on hosts that
		// expanded cleanly; otherwise they restate the problem above.
		checkUnique(ps, p)
		hostsOK = checkRacks(ps, p)
	}
	validateBinaries(ps, p)
	validateSettings(ps, p)
	validateLicense(ps, p)
	validateLocalFiles(ps, p)
	validateRelease(ps, p) // crdbrelease.go
	switch p.Benchmark {
	case "tpcc":
		validateTPCC(ps, p, hostsOK)
	case "crud":
		validateCRUD(ps, p)
	default:
		ps.at(p.node(&p.Benchmark), "benchmark: want tpcc or crud, got %q", p.Benchmark)
	}
	validateStages(ps, p)
	validateThresholds(ps, p)
	validatePublished(ps, p)
	validatePreflight(ps, p)
	checkPartitions(ps, p)
	validateRemote(ps, p) // paths.go: host paths, URLs and driver flags in their place
	for _, l := range []struct {
		list  []string
		field any
		name  string
	}{{p.Start.Flags, &p.Start.Flags, "start.flags"}, {p.TPCC.Extra, &p.TPCC.Extra, "tpcc.extra_flags"}, {p.TPCC.Zones, &p.TPCC.Zones, "tpcc.zones"}} {
		// Each list goes into one command line: Linux's exec takes at
		// most 2 MiB of them (and 128 KiB per argument), and a command
		// line that fails to exec fails on every resume too.
		total := 0
		for _, s := range l.list {
			total += len(s) + 1
		}
		if total > maxArgvBytes {
			ps.at(p.nodeOr(l.field), "%s: %d bytes of flags; at most %d in one command line", l.name, total, maxArgvBytes)
		}
	}
	if est := p.CompiledBytes(); hostsOK && est > maxCompiledBytes {
		ps.at(p.nodeOr(&p.NodeGroups), "the plan compiles to about %d MiB of steps (%d nodes, %d workload hosts, %d stages, %d measured runs); at most %d MiB: fewer hosts, stages or runs",
			est>>20, len(p.Nodes), len(p.Workload), len(p.Stages), len(p.Rounds()), maxCompiledBytes>>20)
	}
	if len(ps.list) == 0 {
		// Only a plan that is otherwise valid is put to the driver: its
		// refusal of anything else would restate a problem above.
		checkRuns(ps, p)
	}
}

func validatePreflight(ps *problems, p *Plan) {
	pf := &p.Preflight
	if !fioSize.MatchString(pf.FioSize) || len(pf.FioSize) > 7 {
		ps.at(p.node(&pf.FioSize), "preflight.fio_size: want a size such as 256M or 1G, at most 999999G (0 skips the disk benchmark), got %q", pf.FioSize)
	}
	checkDuration(ps, p.nodeOr(&pf.FioRuntime), "preflight.fio_runtime", pf.FioRuntime, time.Hour)
	checkDuration(ps, p.nodeOr(&pf.MaxClockOffset), "preflight.max_clock_offset", pf.MaxClockOffset, time.Hour)
	for _, f := range []struct {
		v    float64
		at   any
		name string
		hi   float64
	}{
		{pf.MinFreeGB, &pf.MinFreeGB, "min_free_gb", 1 << 30}, {pf.MinReadIOPS, &pf.MinReadIOPS, "min_read_iops", 1e9},
	} {
		if f.v < 0 || f.v > f.hi {
			ps.at(p.nodeOr(f.at), "preflight.%s: %g is outside 0..%g", f.name, f.v, f.hi)
		}
	}
}

// nodeOr is node, falling back to the document's first line when the
// field was absent (its problem is then "missing").
func (p *Plan) nodeOr(field any) *yaml.Node {
	if n := p.node(field); n != nil {
		return n
	}
	// A field the plan leaves out has no node: point at the mapping that
	// should hold it (tpcc.warehouses at tpcc:, nodes[2].addr at the
	// third node), the nearest one written, else the document's start.
	for path := p.paths[field]; path != ""; {
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
		if n := p.pos[path]; n != nil {
			return n
		}
	}
	return &yaml.Node{Line: 1, Column: 1}
}

func validateBinaries(ps *problems, p *Plan) {
	b := &p.Binaries
	if b.InstallPath != "" {
		checkPath(ps, p.nodeOr(&b.InstallPath), "binaries.install_path", b.InstallPath)
	}
	checkBinary(ps, p, &b.Database, "binaries.database", p.Flavor == Postgres)
	if p.Flavor == Postgres && b.Database.Host == "" {
		ps.at(p.nodeOr(&b.Database), "binaries.database: the postgres flavor uses the programs on the hosts: give host: /usr/lib/postgresql/VERSION/bin")
	}
	if p.Flavor == Postgres && b.Swap != nil && b.Swap.Host == "" {
		ps.at(p.nodeOr(b.Swap), "binaries.swap: the postgres flavor swaps to programs on the hosts: give host: DIRECTORY")
	}
	if b.Swap != nil {
		checkBinary(ps, p, b.Swap, "binaries.swap", p.Flavor == Postgres)
	}
	if b.Driver != nil {
		checkBinary(ps, p, b.Driver, "binaries.driver", false)
	}
	if b.SharePort != -1 && b.SharePort != 0 {
		// 0 is Normalize's to fill; -1 turns sharing off.
		checkRange(ps, p.nodeOr(&b.SharePort), "binaries.share_port (-1: off)", b.SharePort, 1, 65535)
	}
}

func checkBinary(ps *problems, p *Plan, b *Binary, where string, hostOK bool) {
	set := 0
	for _, s := range []string{b.Path, b.URL, b.Host} {
		if s != "" {
			set++
		}
	}
	n := p.nodeOr(b)
	switch {
	case set == 0:
		ps.at(n, "%s: give path (a local file), url (with sha256)%s", where, map[bool]string{true: " or host (a directory already on the hosts)"}[hostOK])
		return
	case set > 1:
		ps.at(n, "%s: give only one of path, url and host", where)
		return
	}
	if b.SHA256 != "" && !hexSHA.MatchString(b.SHA256) {
		ps.at(p.node(&b.SHA256), "%s.sha256: want 64 lowercase hex digits", where)
	}
	switch {
	case b.Path != "":
		checkLocalBinary(ps, p, b, where)
	case b.URL != "":
		if u, err := url.Parse(b.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			ps.at(p.node(&b.URL), "%s.url: want an http(s) URL, got %q", where, b.URL)
		}
		if b.SHA256 == "" {
			ps.at(p.node(&b.URL), "%s: a url needs sha256, so every host can verify what it downloaded", where)
		}
		if b.Member == "" && isArchive(b.URL) {
			ps.at(p.node(&b.URL), "%s: the url is an archive; name the file to install with member", where)
		}
	case b.Host != "":
		if !hostOK {
			ps.at(p.node(&b.Host), "%s.host: only the postgres flavor can use programs already on the hosts", where)
		}
		if !strings.HasPrefix(b.Host, "/") {
			ps.at(p.node(&b.Host), "%s.host: want an absolute path, got %q", where, b.Host)
		} else {
			// pg_ctl runs <host>/postgres through /bin/sh.
			checkPath(ps, p.node(&b.Host), where+".host", b.Host)
		}
	}
	if b.Member != "" && !isArchive(b.URL) {
		ps.at(p.node(&b.Member), "%s.member: only for .tgz/.tar.gz urls", where)
	}
	if m := b.Member; m != "" && (len(m) > maxPathLen || !tarMember.MatchString(m)) {
		ps.at(p.node(&b.Member), "%s.member: %q: want a relative path inside the archive (letters, digits, . _ + -; no leading '-', '.' or '/', no '..')", where, m)
	}
}

func isArchive(url string) bool {
	return strings.HasSuffix(url, ".tgz") || strings.HasSuffix(url, ".tar.gz")
}

func validateSettings(ps *problems, p *Plan) {
	s := &p.Settings
	if s.Preset != "" {
		preset, err := configs.Preset(s.Preset)
		switch {
		case err != nil:
			ps.at(p.node(&s.Preset), "settings.preset: %v", err)
		case preset.Flavor != p.Flavor:
			ps.at(p.node(&s.Preset), "settings.preset: %s is for the %s flavor, the plan is %s", s.Preset, preset.Flavor, p.Flavor)
		}
	}
	if s.Cluster.Kind != 0 {
		if s.Cluster.Kind != yaml.MappingNode {
			ps.at(&s.Cluster, "settings.cluster: want a mapping of setting: value")
		} else {
			for _, kv := range ps.pairs(&s.Cluster, "settings.cluster") {
				k, v := kv.k, kv.v
				if v.Kind == yaml.AliasNode && v.Alias != nil {
					v = v.Alias
				}
				if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
					ps.at(v, "settings.cluster.%s: want a single value", k.Value)
					continue
				}
				if !settingName.MatchString(k.Value) {
					ps.at(k, "settings.cluster: %q is not a setting name", k.Value)
					continue
				}
				if msg := badText(v.Value, false); msg != "" {
					ps.at(v, "settings.cluster.%s: %s", k.Value, msg)
				}
				if v.Tag == "!!int" || v.Tag == "!!float" {
					// Sent as written, but PostgreSQL reads integers with
					// strtol(base 0): 010 is 8 there too. Quoted, it is
					// the plan's explicit text.
					if msg := notDecimal(v); msg != "" {
						ps.at(v, "settings.cluster.%s: %s", k.Value, msg)
					}
				}
				if len(v.Value) > maxStringLen {
					ps.at(v, "settings.cluster.%s: %d bytes; at most %d", k.Value, len(v.Value), maxStringLen)
				}
				if why := deniedWhy(p.Flavor, k.Value); why != "" && !ps.allow[k.Value] && !ps.allow[allowAll] {
					ps.at(k, "settings.cluster: %s is not taken from a plan: %s (the operator may allow it with --allow-setting %s)", k.Value, why, k.Value)
				}
			}
		}
	}
	if s.ImportReplicas < 0 || s.Replicas < 0 {
		ps.at(p.nodeOr(s), "settings: replica counts must be positive")
	}
	if s.ImportReplicas > maxReplicas || s.Replicas > maxReplicas {
		ps.at(p.nodeOr(s), "settings: replica counts above %d", maxReplicas)
	}
	if p.Flavor == Postgres && (s.ImportReplicas > 0 || p.node(&s.Replicas) != nil) {
		ps.at(p.nodeOr(s), "settings: import_replicas and replicas are cockroach zone settings; postgres replicas are the nodes after the first")
	}
}

// settingName is what a cluster setting or GUC name may look like; it is
// also what keeps a name from smuggling SQL into SET statements.
var settingName = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)

// Ordered returns the settings in the order they are applied: the preset's,
// then the plan's (a plan value overrides the preset's in place).
func (s *Settings) Ordered() []Setting { return s.ordered }

func validateLicense(ps *problems, p *Plan) {
	l := p.License
	if l == nil {
		return
	}
	n := p.nodeOr(l)
	if l.Key == nil {
		ps.at(n, "license.key: missing: give env: VAR or file: PATH")
		return
	}
	k := l.Key
	if k.Value != "" {
		ps.at(p.node(&k.Value), "license.key.value: a licence key is a secret and is never written in a plan; give env: VAR or file: PATH")
	}
	switch {
	case k.Env != "" && k.File != "":
		ps.at(p.nodeOr(k), "license.key: give env or file, not both")
	case k.Env != "":
		if !envVar.MatchString(k.Env) {
			ps.at(p.node(&k.Env), "license.key.env: %q is not an environment variable name", k.Env)
		} else if ps.unresolved {
			// plan show and dry-run print the reference, never read it.
		} else if _, err := k.Read(); err != nil {
			// Resolved now, not when configure runs after install and
			// start; the error names the variable, never a value.
			ps.at(p.node(&k.Env), "license.key.env: %v", err)
		}
	case k.File != "":
		if ps.unresolved {
			break
		}
		if _, err := k.Read(); err != nil {
			ps.at(p.node(&k.File), "license.key.file: %v", err)
		}
	case k.Value == "":
		ps.at(p.nodeOr(k), "license.key: give env: VAR or file: PATH")
	}
	if l.Organization == "" && p.Flavor == Cockroach {
		ps.at(n, "license.organization: missing (CockroachDB checks the key against it)")
	}
}

// seqItem is the i-th item of a sequence node, or the node itself.
func seqItem(n *yaml.Node, i int) *yaml.Node {
	if i >= 0 && i < len(n.Content) {
		return n.Content[i]
	}
	return n
}

func validateStages(ps *problems, p *Plan) {
	n := p.nodeOr(&p.Stages)
	if len(p.Stages) == 0 {
		ps.at(n, "stages: list the stages to run, in order (%s)", strings.Join(StageNames, ", "))
		return
	}
	last := -1
	seen := map[string]bool{}
	for i, s := range p.Stages {
		idx := slices.Index(StageNames, s)
		at := n
		if i < len(n.Content) {
			at = n.Content[i]
		}
		switch {
		case idx < 0:
			ps.at(at, "stages[%d]: unknown stage %q%s", i, s, suggest(s, StageNames))
			continue
		case seen[s]:
			ps.at(at, "stages[%d]: %s is listed twice", i, s)
			continue
		case idx < last:
			ps.at(at, "stages[%d]: %s must come before %s (stages run in the order %s)", i, s, StageNames[last], strings.Join(StageNames, ", "))
		}
		seen[s] = true
		last = max(last, idx)
		switch s {
		case "partition":
			if p.TPCC.Partitions == 0 {
				ps.at(at, "stages: partition needs tpcc.partitions")
			}
		case "swap":
			if p.Binaries.Swap == nil {
				ps.at(at, "stages: swap needs binaries.swap")
			}
		case "allocate":
			if p.TPCC.AllocateRamp == 0 {
				ps.at(at, "stages: allocate needs tpcc.allocate_ramp")
			}
		case "run":
			if p.TPCC.Duration == 0 && p.Benchmark != "crud" {
				ps.at(p.nodeOr(&p.TPCC), "stages: run needs tpcc.duration")
			}
		case "configure":
			if p.License != nil && p.License.Key != nil && p.License.Key.Env != "" {
				// Checked at run time, not here: a dry-run must work
				// without the secret present.
			}
		}
		if (s == "import" || s == "run" || s == "allocate" || s == "partition") && len(p.Workload) == 0 {
			ps.at(at, "stages: %s runs on workload hosts, but the plan has none", s)
		}
	}
}
