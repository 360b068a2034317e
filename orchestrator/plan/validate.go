package plan

import (
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
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
	"swap", "allocate", "run", "collect", "merge",
}

var (
	fioSize  = regexp.MustCompile(`^[0-9]+[KMG]?$`)
	planName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	hexSHA   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	envVar   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// hostWord is a DNS name, an IPv4 address or a bracket-free IPv6
	// address: what may stand in a URL, a --join list and a conf file.
	hostWord = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?$`)
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
)

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
func Validate(p *Plan) error {
	ps := &problems{file: p.File}
	validate(ps, p)
	return ps.err()
}

// validate reports every problem of p (normalized) to ps.
func validate(ps *problems, p *Plan) {
	if p.Version != 1 {
		ps.at(p.node(&p.Version), "version: want 1, got %d", p.Version)
	}
	if !planName.MatchString(p.Name) {
		ps.at(p.nodeOr(&p.Name), "name: want letters, digits, '.', '_' or '-' (it names the run directory), got %q", p.Name)
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
		// Each hop may be resolved with `ssh -G HOP`: no option, no space.
		ps.at(p.node(&p.SSH.JumpHost), "ssh.jump_host: %q: want [user@]host[:port] hops separated by commas (no leading '-')", p.SSH.JumpHost)
	}
	if p.SSH.Concurrency < 0 {
		ps.at(p.node(&p.SSH.Concurrency), "ssh.concurrency: must be positive")
	} else {
		checkRange(ps, p.node(&p.SSH.Concurrency), "ssh.concurrency", p.SSH.Concurrency, 1, 1024)
	}

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
	switch p.Benchmark {
	case "tpcc":
		validateTPCC(ps, p, hostsOK)
	case "crud":
		validateCRUD(ps, p)
	default:
		ps.at(p.node(&p.Benchmark), "benchmark: want tpcc or crud, got %q", p.Benchmark)
	}
	validateStages(ps, p)
	validatePreflight(ps, p)
	checkPartitions(ps, p)
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
	return &yaml.Node{Line: 1, Column: 1}
}

// expandHosts turns host specs into hosts, applying defaults.
func expandHosts(ps *problems, p *Plan, specs []HostSpec, where string, isNode bool) []Host {
	var hosts []Host
	for si := range specs {
		s := &specs[si]
		at := fmt.Sprintf("%s[%d]", where, si)
		if s.Name == "" {
			ps.at(p.nodeOr(s), "%s.name: missing", at)
			continue
		}
		fields := []struct {
			name string
			val  *string
		}{
			{"name", &s.Name}, {"ssh", &s.SSH}, {"addr", &s.Addr}, {"port", &s.Port}, {"user", &s.User},
			{"rack", &s.Rack}, {"sql_port", &s.SQLPort}, {"http_port", &s.HTTPPort},
			{"store", &s.Store}, {"dir", &s.Dir},
		}
		for _, f := range fields {
			// These end up in quoted conf-file values and URLs as well as
			// in argv; a quote or control character has no business there.
			if strings.ContainsAny(*f.val, "'\"\n\r\x00") {
				ps.at(p.node(f.val), "%s.%s: %q holds a quote or control character", at, f.name, *f.val)
			}
		}
		vals := make([][]string, len(fields))
		count := 1
		ok := true
		for i, f := range fields {
			if *f.val == "" {
				continue
			}
			v, err := expandPatternMax(*f.val, maxHosts)
			if err != nil {
				ps.at(p.node(f.val), "%s.%s: %v", at, f.name, err)
				ok = false
				continue
			}
			vals[i] = v
			if len(v) > 1 {
				if count > 1 && len(v) != count {
					ps.at(p.node(f.val), "%s.%s: expands to %d values but name expands to %d", at, f.name, len(v), count)
					ok = false
				}
				count = max(count, len(v))
			}
		}
		if len(vals[0]) != count && len(vals[0]) == 1 && count > 1 {
			ps.at(p.node(&s.Name), "%s.name: %q names one host but other fields expand to %d; give the name a range such as %s[1-%d]", at, s.Name, count, s.Name, count)
			ok = false
		}
		if !ok {
			continue
		}
		get := func(i, k int) string {
			switch len(vals[i]) {
			case 0:
				return ""
			case 1:
				return vals[i][0]
			}
			return vals[i][k]
		}
		if s.Racks < 0 || (s.Racks > 0 && s.Rack != "") {
			ps.at(p.node(&s.Racks), "%s.racks: give either rack or a positive racks, not both", at)
		}
		racks := s.Racks
		if racks > count {
			ps.at(p.node(&s.Racks), "%s.racks: %d racks for %d hosts leaves racks empty", at, s.Racks, count)
			racks = 0 // k*racks/count below must not overflow
		}
		if len(s.Partitions) > 0 && (isNode || count != 1) {
			ps.at(p.node(&s.Partitions), "%s.partitions: only a single workload host can pin partitions", at)
		}
		badWord := map[*string]bool{}
		for k := 0; k < count; k++ {
			h := Host{
				Name:  get(0, k),
				SSH:   get(1, k),
				Addr:  get(2, k),
				User:  get(4, k),
				Store: get(8, k),
				Dir:   get(9, k),
				Rack:  -1,
				spec:  s,
			}
			if h.SSH == "" {
				h.SSH = h.Name
			}
			for _, f := range []struct {
				field     *string
				val, what string
			}{
				{&s.Name, h.Name, "name"}, {&s.SSH, h.SSH, "ssh"}, {&s.Addr, h.Addr, "addr"},
			} {
				if f.val != "" && !hostWord.MatchString(f.val) && !badWord[f.field] {
					badWord[f.field] = true // once per field, not per host
					ps.at(p.node(f.field), "%s.%s: %q is not a host name or address", at, f.what, f.val)
				}
			}
			for _, f := range []struct {
				field     *string
				val, what string
			}{
				{&s.Store, h.Store, "store"}, {&s.Dir, h.Dir, "dir"},
			} {
				if f.val != "" && !badWord[f.field] {
					before := len(ps.list)
					checkPath(ps, p.node(f.field), at+"."+f.what, f.val)
					badWord[f.field] = len(ps.list) > before
				}
			}
			if h.User != "" && !loginName.MatchString(h.User) && !badWord[&s.User] {
				badWord[&s.User] = true
				ps.at(p.node(&s.User), "%s.user: %q is not a user name", at, h.User)
			}
			if h.Addr == "" {
				h.Addr = h.SSH
			}
			if h.User == "" {
				h.User = p.SSH.User
			}
			if h.Dir == "" {
				h.Dir = "benchrig"
			}
			h.Port = p.SSH.Port
			h.Port = portField(ps, p, &s.Port, get(3, k), at+".port", h.Port)
			if r := get(5, k); r != "" {
				n, err := strconv.Atoi(r)
				if err != nil || n < 0 || n >= maxHosts {
					ps.at(p.node(&s.Rack), "%s.rack: %q is not a rack number (0..%d)", at, r, maxHosts-1)
					n = -1
				}
				h.Rack = n
			}
			if racks > 0 {
				h.Rack = k * racks / count
			}
			if isNode {
				defSQL, defHTTP := 26257, 8080
				if p.Flavor == Postgres {
					defSQL, defHTTP = 5432, 0
				}
				h.ListenSet = s.SQLPort != "" || s.HTTPPort != ""
				h.SQLPort = portField(ps, p, &s.SQLPort, get(6, k), at+".sql_port", defSQL)
				h.HTTPPort = portField(ps, p, &s.HTTPPort, get(7, k), at+".http_port", defHTTP)
				if h.Store == "" && p.Flavor == Postgres {
					h.Store = h.Dir + "/pgdata"
				}
			} else {
				h.Partitions = slices.Clone(s.Partitions)
				h.Pinned = len(s.Partitions) > 0
				if s.SQLPort != "" || s.HTTPPort != "" || s.Store != "" || s.Rack != "" || s.Racks != 0 {
					ps.at(p.nodeOr(s), "%s: sql_port, http_port, store and rack are for database nodes", at)
				}
			}
			hosts = append(hosts, h)
		}
	}
	return hosts
}

func portField(ps *problems, p *Plan, field *string, v, where string, def int) int {
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 65535 {
		ps.at(p.node(field), "%s: %q is not a port", where, v)
		return def
	}
	return n
}

func checkUnique(ps *problems, p *Plan) {
	names := map[string]bool{}
	listen := map[string]string{}
	for _, h := range append(append([]Host(nil), p.Nodes...), p.Workload...) {
		if names[h.Name] {
			ps.at(p.nodeOr(&h.spec.Name), "host %s: the name is used twice", h.Name)
		}
		names[h.Name] = true
	}
	for _, h := range p.Nodes {
		key := fmt.Sprintf("%s:%d", h.Addr, h.SQLPort)
		if other, dup := listen[key]; dup {
			ps.at(p.nodeOr(&h.spec.Name), "host %s: address %s is also node %s's (give distinct addr or sql_port)", h.Name, key, other)
		}
		listen[key] = h.Name
		if dir := h.SSH + ":" + h.Dir; p.Flavor == Postgres {
			if other, dup := listen[dir]; dup {
				ps.at(p.nodeOr(&h.spec.Dir), "host %s: work directory %s is also node %s's", h.Name, h.Dir, other)
			}
			listen[dir] = h.Name
		}
	}
}

// checkRacks: either no node has a rack, or all have, and racks 0..R-1
// each hold at least one node.
func checkRacks(ps *problems, p *Plan) bool {
	before := len(ps.list)
	withRack := 0
	count := map[int]int{}
	maxRack := -1
	for _, h := range p.Nodes {
		if h.Rack >= 0 {
			withRack++
			count[h.Rack]++
			maxRack = max(maxRack, h.Rack)
		}
	}
	if withRack == 0 {
		return true
	}
	if withRack != len(p.Nodes) {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: %d of %d nodes have a rack; give every node one or none", withRack, len(p.Nodes))
	}
	if maxRack >= len(p.Nodes) {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: rack %d, but there are only %d nodes (racks are numbered 0..nodes-1)", maxRack, len(p.Nodes))
		return false
	}
	var empty []string
	for r := 0; r <= maxRack; r++ {
		if count[r] == 0 {
			empty = append(empty, strconv.Itoa(r))
		}
	}
	if len(empty) > 0 {
		ps.at(p.nodeOr(&p.NodeGroups), "nodes: racks must be numbered 0..%d without gaps; rack %s has no node", maxRack, strings.Join(empty, ", "))
	}
	return len(ps.list) == before
}

// Racks is the number of racks (0 when nodes have no locality).
func (p *Plan) Racks() int {
	n := 0
	for _, h := range p.Nodes {
		n = max(n, h.Rack+1)
	}
	return n
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
		if _, err := os.Stat(b.Path); err != nil {
			ps.at(p.node(&b.Path), "%s.path: %v", where, err)
		}
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
			for i := 0; i+1 < len(s.Cluster.Content); i += 2 {
				k, v := s.Cluster.Content[i], s.Cluster.Content[i+1]
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
		} else if _, err := k.Read(); err != nil {
			// Resolved now, not when configure runs after install and
			// start; the error names the variable, never a value.
			ps.at(p.node(&k.Env), "license.key.env: %v", err)
		}
	case k.File != "":
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
	if t.Wait != "" {
		if _, err := strconv.ParseFloat(t.Wait, 64); err != nil && t.Wait != "true" && t.Wait != "false" {
			ps.at(p.node(&t.Wait), "tpcc.wait: want true, false or a factor such as 0.5, got %q", t.Wait)
		}
	}
	if !planName.MatchString(t.Database) {
		ps.at(p.node(&t.Database), "tpcc.database: %q is not a plain database name", t.Database)
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
	}
	for i, s := range p.Stages {
		switch s {
		case "import", "partition", "allocate":
			ps.at(seqItem(p.nodeOr(&p.Stages), i), "stages: %s is a TPC-C stage; benchmark: crud runs preflight, install, start, init, configure, swap, run, collect, merge", s)
		}
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
