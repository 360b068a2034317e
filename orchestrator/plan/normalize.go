package plan

import (
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/benchrig/benchrig/configs"
)

// Normalize returns a new plan with every default applied, relative paths
// made absolute and the hosts expanded: the one plan that plan show,
// dry-run, run and the report all read. p is not changed. Normalize never
// fails; a value it cannot use is left out (a host pattern that does not
// expand, a setting without a name) for Validate to report.
func Normalize(p *Plan) *Plan {
	n := p.clone()
	discard := &problems{file: p.File}
	switch n.Flavor {
	case Cockroach, Postgres:
	default:
		n.index()
		return n // every default depends on the flavor
	}
	ssh := &n.SSH
	for _, f := range []*string{&ssh.Config, &ssh.IdentityFile, &ssh.KnownHosts} {
		if *f != "" {
			*f = n.resolve(*f)
		}
	}
	if ssh.Port == 0 {
		ssh.Port = 22
	}
	if ssh.Concurrency == 0 {
		// sshd's MaxStartups 10:30:100 starts dropping unauthenticated
		// connections past 10; a bastion shares that budget.
		ssh.Concurrency = 8
	}
	n.Nodes = expandHosts(discard, n, n.NodeGroups, "nodes", true)
	n.Workload = expandHosts(discard, n, n.WorkGroups, "workload", false)

	b := &n.Binaries
	if b.SharePort == 0 {
		b.SharePort = DefaultSharePort
	}
	if n.Flavor == Cockroach && b.InstallPath == "" {
		b.InstallPath = "/usr/local/bin/cockroach"
	}
	for _, bin := range []*Binary{&b.Database, b.Swap, b.Driver, b.Workload} {
		if bin != nil && bin.Path != "" {
			bin.Path = n.resolve(bin.Path)
		}
	}
	n.normalizeSettings()
	if l := n.License; l != nil && l.Key != nil && l.Key.File != "" && l.Key.Env == "" {
		l.Key.File = n.resolve(l.Key.File)
	}

	if n.Benchmark == "" {
		n.Benchmark = "tpcc"
	}
	t := &n.TPCC
	if t.Database == "" {
		t.Database = "tpcc"
	}
	switch n.Benchmark {
	case "tpcc":
		if t.PartitionRun == 0 {
			t.PartitionRun = Duration(60e9)
		}
	case "crud":
		// The seed's: 100 goroutines × 400 records, 10 selects, 300
		// select-many.
		c := &n.CRUD
		for _, d := range []struct {
			v   *int
			def int
		}{{&c.Goroutines, 100}, {&c.Records, 400}, {&c.SelectRepeat, 10}, {&c.ManyRepeat, 300}} {
			if *d.v == 0 {
				*d.v = d.def
			}
		}
		if c.Table == "" {
			c.Table = "crud_bench"
		}
		if t.Warehouses == 0 {
			t.Warehouses = 1 // unused; keeps the tpcc-shaped code paths sane
		}
	}
	n.Preflight.defaults()
	n.normalizeFidelity()
	if n.Benchmark == "tpcc" && t.Histograms == "" {
		// The recipes' workload<n>.histogram.ndjson, or the name the
		// release's workload accepts (.histogram.json from v24.3).
		suffix := ".histogram.ndjson"
		if rel, ok := n.Release(); ok && n.Flavor == Cockroach {
			suffix = rel.HistogramSuffix
		}
		t.Histograms = "workload{n}" + suffix
	}
	n.assignPartitions()
	n.index()
	return n
}

// clone copies p deeply enough that Normalize can change the copy: the
// values behind pointers it writes through are copied; slices it only
// reads are shared.
func (p *Plan) clone() *Plan {
	n := *p
	n.paths = nil
	cp := func(b *Binary) *Binary {
		if b == nil {
			return nil
		}
		c := *b
		return &c
	}
	n.Binaries.Swap, n.Binaries.Driver, n.Binaries.Workload = cp(p.Binaries.Swap), cp(p.Binaries.Driver), cp(p.Binaries.Workload)
	if p.License != nil {
		l := *p.License
		if l.Key != nil {
			k := *l.Key
			l.Key = &k
		}
		n.License = &l
	}
	n.Settings.ordered = nil
	n.Nodes, n.Workload = nil, nil
	return &n
}

// normalizeSettings lists the settings in the order they are applied: the
// preset's, then the plan's (a plan value overrides the preset's in
// place); replica counts default to the preset's, and to 3 once an import
// replica count is set.
func (n *Plan) normalizeSettings() {
	s := &n.Settings
	if s.Preset != "" {
		if preset, err := configs.Preset(s.Preset); err == nil {
			for _, kv := range preset.Settings {
				s.ordered = append(s.ordered, Setting{Name: kv.Name, Value: kv.Value})
			}
			if s.ImportReplicas == 0 {
				s.ImportReplicas = preset.ImportReplicas
			}
			if s.Replicas == 0 {
				s.Replicas = preset.Replicas
			}
		}
	}
	if s.Cluster.Kind == yaml.MappingNode {
		for _, kv := range (&problems{}).pairs(&s.Cluster, "settings.cluster") {
			k, v := kv.k, kv.v
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind == yaml.ScalarNode && v.Tag != "!!null" && settingName.MatchString(k.Value) && badText(v.Value, false) == "" {
				s.set(k.Value, v.Value)
			}
		}
	}
	if s.ImportReplicas > 0 && s.Replicas == 0 {
		s.Replicas = 3
	}
}

// assignPartitions gives each workload host its partitions: those pinned
// in the plan, and otherwise partition p to host p mod N (the 100k
// recipe's 0,5,10,15,20,25 for host 0 of 5). checkPartitions then says
// whether every partition ended up on exactly one host.
func (n *Plan) assignPartitions() {
	P := n.TPCC.Partitions
	if P <= 0 || P > maxPartitions || P > max(n.TPCC.Warehouses, 1) || len(n.Workload) == 0 {
		return // out of bounds: validateTPCC says so
	}
	for _, h := range n.Workload {
		if h.Pinned {
			return
		}
	}
	for i := range n.Workload {
		h := &n.Workload[i]
		h.Partitions = nil
		for part := i; part < P; part += len(n.Workload) {
			h.Partitions = append(h.Partitions, part)
		}
	}
}

// resolve makes a plan-relative path absolute ("~/" is the user's home).
func (p *Plan) resolve(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(p.Dir, path)
}

// set adds or overrides a setting, keeping first-seen order.
func (s *Settings) set(name, value string) {
	for i := range s.ordered {
		if s.ordered[i].Name == name {
			s.ordered[i].Value = value
			return
		}
	}
	s.ordered = append(s.ordered, Setting{Name: name, Value: value})
}
