package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/benchrig/benchrig/internal/localfile"
)

// Plan is a benchmark plan as written in YAML (see docs/plan.md, the plan
// reference). Normalize applies the defaults and expands host patterns
// into Nodes and Workload; Validate checks it.
type Plan struct {
	Version     int        `yaml:"version"`
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Flavor      string     `yaml:"flavor"`
	SSH         SSHConfig  `yaml:"ssh"`
	NodeGroups  []HostSpec `yaml:"nodes"`
	WorkGroups  []HostSpec `yaml:"workload"`
	Binaries    Binaries   `yaml:"binaries"`
	Start       Start      `yaml:"start"`
	Settings    Settings   `yaml:"settings"`
	License     *License   `yaml:"license"`
	// Benchmark is what the run stage runs: tpcc (default) or crud.
	Benchmark string    `yaml:"benchmark"`
	CRUD      CRUD      `yaml:"crud"`
	TPCC      TPCC      `yaml:"tpcc"`
	Preflight Preflight `yaml:"preflight"`
	// Thresholds are checked when the run ends (thresholds.go).
	Thresholds *Thresholds `yaml:"thresholds"`
	// Published is the recipe page's own result, which the report and
	// check-result set a run beside (published.go).
	Published *Published `yaml:"published"`
	Stages    []string   `yaml:"stages"`

	// Filled by decoding (File, Dir) and Normalize (Nodes, Workload).
	File     string `yaml:"-"`
	Dir      string `yaml:"-"` // directory relative paths are resolved against
	Nodes    []Host `yaml:"-"` // expanded database nodes, in plan order
	Workload []Host `yaml:"-"` // expanded workload hosts, in plan order

	pos   nodeOf     // by path; shared by every value made from this plan
	paths fieldPaths // this value's field addresses; see index
}

// SSHConfig holds connection defaults for every host of the plan.
type SSHConfig struct {
	// Config is an ssh_config file to read instead of ~/.ssh/config.
	Config       string `yaml:"config"`
	User         string `yaml:"user"`
	Port         int    `yaml:"port"`
	IdentityFile string `yaml:"identity_file"`
	KnownHosts   string `yaml:"known_hosts"`
	JumpHost     string `yaml:"jump_host"`
	Concurrency  int    `yaml:"concurrency"`
	// ReconnectBudget is how long a host may stay unreachable while a
	// step waits on it (the run redials and re-attaches meanwhile)
	// before the run stops; 0 means 10m.
	ReconnectBudget Duration `yaml:"reconnect_budget"`
	// Keepalive is how often each connection is probed; three probes in
	// a row unanswered drop it (a silent host is noticed within about
	// six times this); 0 means 15s.
	Keepalive Duration `yaml:"keepalive"`
	// Sudo runs the steps that write outside the host's work directory
	// (installing into install_path, renaming the old binary) under
	// `sudo -n`, as the recipes' "prefix the command with sudo".
	Sudo bool `yaml:"sudo"`
}

// HostSpec is one entry of `nodes:` or `workload:`. String fields may hold
// a range pattern such as "node[01-81]" or "10.0.1.[11-91]": a spec with
// patterns stands for as many hosts as its patterns expand to (patterns of
// one spec must agree in length; a plain value applies to all).
type HostSpec struct {
	Name     string `yaml:"name"`
	SSH      string `yaml:"ssh"`  // address or ssh_config alias to dial; default: name
	Addr     string `yaml:"addr"` // internal address for the cluster; default: the ssh host
	Port     string `yaml:"port"` // ssh port for these hosts; default: ssh.port
	User     string `yaml:"user"`
	Rack     string `yaml:"rack"`  // rack number, or a pattern of them
	Racks    int    `yaml:"racks"` // host k of the spec in rack k % racks (roachprod's --racks)
	SQLPort  string `yaml:"sql_port"`
	HTTPPort string `yaml:"http_port"`
	Store    string `yaml:"store"` // database store directory
	// StoreMount is the mount point of the file system the store must be
	// on (the instance-store SSD the pages ask for): preflight refuses a
	// node whose store path is on another one (an unmounted disk leaves
	// the path on the root volume).
	StoreMount string `yaml:"store_mount"`
	Dir        string `yaml:"dir"` // work directory for benchrig's files on the host
	// Partitions pins the TPC-C partitions this workload host drives
	// (--partition-affinity); default: partition p goes to host p mod N.
	Partitions []int `yaml:"partitions"`
}

// Host is one expanded host.
type Host struct {
	Name     string
	SSH      string
	Port     int
	User     string
	Addr     string
	Rack     int // -1: no locality
	SQLPort  int
	HTTPPort int
	Store    string
	// StoreMount: HostSpec.StoreMount ("" when the plan names none).
	StoreMount string
	Dir        string
	// ListenSet says sql_port/http_port were given explicitly, so the
	// node must be told to listen there (several nodes on one machine).
	ListenSet  bool
	Partitions []int // workload hosts: the partitions it drives
	// Pinned says the plan gave Partitions (partitions: on the host)
	// rather than leaving them to the p mod N default.
	Pinned bool

	spec *HostSpec
}

// Binaries says where the programs come from.
type Binaries struct {
	// Database is the database binary (cockroach) or, for postgres, the
	// directory of the PostgreSQL programs.
	Database Binary `yaml:"database"`
	// Swap is the binary that replaces Database in the swap stage.
	Swap *Binary `yaml:"swap"`
	// Driver is the benchrig binary uploaded to workload hosts; default:
	// this executable (build another with GOOS/GOARCH for other hosts).
	Driver *Binary `yaml:"driver"`
	// Workload is CockroachDB's official workload binary, uploaded to the
	// workload hosts when tpcc.driver is workload.
	Workload *Binary `yaml:"workload"`
	// InstallPath is where the database binary goes on nodes.
	InstallPath string `yaml:"install_path"`
	// SharePort is the TCP port on which, in the install stage, a node
	// that has the benchrig binary serves it to the other hosts (`benchrig
	// serve-file` on its addr), so that it crosses the operator's link
	// once; default DefaultSharePort; -1 sends it to every host from
	// this machine instead.
	SharePort int `yaml:"share_port"`
}

// DefaultSharePort is binaries.share_port's default: below Linux's
// ephemeral range (32768-60999), clear of PostgreSQL's 5432 and
// CockroachDB's 26257/8080.
const DefaultSharePort = 29876

// Binary is a file to put on hosts: a local path, a URL the host
// downloads, or (postgres) a path that already exists on the hosts.
type Binary struct {
	Path   string `yaml:"path"`
	URL    string `yaml:"url"`
	SHA256 string `yaml:"sha256"`
	// Member is the file to take out of a .tgz/.tar.gz URL.
	Member string `yaml:"member"`
	// Host is a path already present on every host (nothing is copied).
	Host string `yaml:"host"`
}

// Start holds extra flags for the database's start command.
type Start struct {
	Flags []string `yaml:"flags"`
}

// Settings are database settings applied in the configure stage.
type Settings struct {
	// Preset names a file configs/settings/<preset>.yaml whose settings
	// come first; the plan's own override them.
	Preset string `yaml:"preset"`
	// Cluster holds settings in order: SET CLUSTER SETTING (cockroach),
	// ALTER SYSTEM SET (postgres).
	Cluster yaml.Node `yaml:"cluster"`
	// ImportReplicas, if set, is the replication factor during import
	// (the recipes' num_replicas = 1), restored to Replicas before
	// partitioning.
	ImportReplicas int `yaml:"import_replicas"`
	Replicas       int `yaml:"replicas"`
	// GCTTLSeconds, if set, is the default range's gc.ttlseconds (the
	// v20.2+ large recipe's 600), set before the import.
	GCTTLSeconds int `yaml:"gc_ttl_seconds"`

	ordered []Setting
	// allowed are the settings the operator allowed for this run
	// (Options.AllowSettings; allowAll for a read-only caller): Guarded
	// leaves them to the operator.
	allowed map[string]bool
}

// Setting is one name = value pair.
type Setting struct {
	Name, Value string
}

// License is the enterprise licence: an organisation name and a key read
// from an environment variable or a file at run time, never inline.
type License struct {
	Organization string     `yaml:"organization"`
	Key          *SecretRef `yaml:"key"`
}

// SecretRef says where a secret is read from when it is needed.
type SecretRef struct {
	Env  string `yaml:"env"`
	File string `yaml:"file"`
	// Value is rejected by validation: secrets are never written in plans.
	Value string `yaml:"value"`
}

// TPCC holds the benchmark parameters.
type TPCC struct {
	Warehouses       int      `yaml:"warehouses"`
	ActiveWarehouses int      `yaml:"active_warehouses"`
	Partitions       int      `yaml:"partitions"`
	Ramp             Duration `yaml:"ramp"`
	Duration         Duration `yaml:"duration"`
	AllocateRamp     Duration `yaml:"allocate_ramp"`
	PartitionRun     Duration `yaml:"partition_run"`
	Ulimit           int      `yaml:"ulimit"`
	Wait             string   `yaml:"wait"`
	Workers          int      `yaml:"workers"`
	Conns            int      `yaml:"conns"`
	// Gateways, if above 0, is how many nodes the measured run's
	// connection strings name (the first Gateways nodes, in node order):
	// the Local pages run `workload run tpcc` against one node's URL, as
	// a cluster's client would, where the 100k recipe's addrs file lists
	// every node. 0: every node. Not with partitions (each host then
	// lists its own partitions' nodes).
	Gateways        int    `yaml:"gateways"`
	LoadConcurrency int    `yaml:"load_concurrency"`
	Database        string `yaml:"database"`
	// Histograms is the file name pattern on each workload host; {n} is
	// the host's 1-based number (the recipe's workload1.histogram.ndjson).
	Histograms string `yaml:"histograms"`
	// SplitLoad spreads the import across all workload hosts by warehouse
	// range (the recipes import from one host).
	SplitLoad bool `yaml:"split_load"`
	// Repeat runs the measured run this many times (report: mean,
	// standard deviation, min and max).
	Repeat int `yaml:"repeat"`
	// Sweep runs the measured run once per value of a flag (each
	// repeated Repeat times); the report plots tpmC against it.
	Sweep *Sweep `yaml:"sweep"`
	// Search looks for the largest passing --active-warehouses.
	Search *Search  `yaml:"search"`
	Extra  []string `yaml:"extra_flags"`

	// The cockroach flavor's fidelity to workload (fidelity.go).
	// CockroachVersion is the cluster's release (v20.1): it picks
	// workload's statements; default: read from binaries.database.
	CockroachVersion string `yaml:"cockroach_version"`
	// Driver runs the benchmark: benchrig (the embedded driver, default)
	// or workload (the recipes' own commands, run by the cluster's own
	// binary as `cockroach workload`, or by binaries.workload if given).
	Driver string `yaml:"driver"`
	// Profile is the embedded driver's load profile (`tpcc run
	// --profile`): workload (CockroachDB workload's statements, retries,
	// connections and ramp; the cockroach default), pipelined
	// (benchrig's batched transactions; the postgres default) or
	// functions (each transaction one call of a PL/pgSQL function; postgres
	// only).
	Profile string `yaml:"profile"`
	// FillFactor (postgres only, 10..100; 0: the server's 100) is `tpcc
	// init --fillfactor`: the fillfactor of the six tables the
	// transactions update in place, so that their updates can stay on the
	// page.
	FillFactor int    `yaml:"fillfactor"`
	Import     Import `yaml:"import"`
	// PartitionStrategy (replication, leases) and Zones are workload's
	// --partition-strategy and --zones.
	PartitionStrategy string   `yaml:"partition_strategy"`
	Zones             []string `yaml:"zones"`
	// ReplicateStaticColumns is workload's --replicate-static-columns
	// (v20.2+): district and warehouse replicas pinned to each rack.
	ReplicateStaticColumns bool `yaml:"replicate_static_columns"`
}

// Import says how the import stage loads the data.
type Import struct {
	// Method: import (cockroach's default: IMPORT from workload://
	// sources, generated by every node) or copy (postgres's default:
	// rows sent from the workload hosts).
	Method string `yaml:"method"`
	// Hosts that load with copy: all (default; each a disjoint warehouse
	// range) or first.
	Hosts string `yaml:"hosts"`
	// FilesPerNode is workload's --files-per-node (1).
	FilesPerNode int `yaml:"files_per_node"`
}

// CRUD holds the parameters of `benchrig crud` (the seed's simple
// benchmark), for plans with benchmark: crud.
type CRUD struct {
	Goroutines   int    `yaml:"goroutines"`
	Records      int    `yaml:"records"`
	SelectRepeat int    `yaml:"select_repeat"`
	ManyRepeat   int    `yaml:"many_repeat"`
	Table        string `yaml:"table"`
}

// Sweep varies one tpcc run flag across the measured runs.
type Sweep struct {
	Flag   string `yaml:"flag"` // workers (no-wait) | active-warehouses
	Values []int  `yaml:"values"`
}

// MaxPlanSize caps a plan file: the largest published recipe's plan is a
// few kilobytes, and a YAML document costs about forty times its size in
// memory to parse.
const MaxPlanSize = 1 << 20

// Options are what the command line, not the plan, says about a plan's
// validation.
type Options struct {
	// AllowSettings names database settings the plan may set although
	// they run commands, load code or send data elsewhere (denied.go):
	// --allow-setting NAME, for the rare legitimate use.
	AllowSettings []string `flag:"allow-setting" usage:"let the plan set database setting NAME although it runs commands, loads code or sends data elsewhere (repeatable)" arg:"NAME"`
	// ReadOnly says the caller only reads the plan (report, teardown,
	// thresholds of a finished run) and applies none of its settings, so
	// none is refused for what applying it would do.
	ReadOnly bool
	// Unresolved leaves the secrets a plan names unread: looking at a
	// plan (plan show, run --dry-run) does not need its licence, and
	// prints the reference, never a value. Validate and a real run read
	// and check them.
	Unresolved bool
}

// LoadPlan reads a plan file, decodes it strictly, normalizes it and
// validates it: the normalized plan, or a *PlanError listing every
// problem as file:line:col. At most one Options is used.
func LoadPlan(path string, opts ...Options) (*Plan, error) {
	data, err := ReadPlanFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePlan(path, data, opts...)
}

// ReadPlanFile reads a plan file as every file a plan names is read
// (internal/localfile): a regular file, opened without blocking (a FIFO
// would hang), of at most MaxPlanSize bytes. A file that is too large or
// not a regular file is a *PlanError.
func ReadPlanFile(path string) ([]byte, error) {
	data, err := localfile.Read(path, MaxPlanSize)
	switch {
	case errors.Is(err, localfile.ErrTooLarge):
		return nil, &PlanError{File: path, Problems: []Problem{{Pos: Pos{File: path, Line: 1, Col: 1},
			Msg: fmt.Sprintf("the plan is larger than %d bytes (host ranges such as node[01-81] keep big topologies short)", MaxPlanSize)}}}
	case errors.Is(err, localfile.ErrNotRegular):
		return nil, &PlanError{File: path, Problems: []Problem{{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: "the plan " + strings.TrimPrefix(err.Error(), path+": ")}}}
	case err != nil:
		return nil, fmt.Errorf("read plan: %w", err)
	}
	return data, nil
}

// ParsePlan is LoadPlan on bytes already read; file names the plan in
// messages and anchors relative paths. The steps are Decode's (strict
// YAML), Normalize (defaults, a new value) and Validate (pure), with the
// problems of the first and the last reported together.
func ParsePlan(file string, data []byte, opts ...Options) (*Plan, error) {
	p, ps, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	n := Normalize(p)
	// Validate even after decode problems, so that one pass reports
	// everything; problems at a place that already failed to decode are
	// dropped, since they only restate it.
	decoded := map[Pos]bool{}
	for _, pr := range ps.list {
		decoded[pr.Pos] = true
	}
	vs := &problems{file: file, allow: allowed(opts)}
	for _, o := range opts {
		vs.unresolved = vs.unresolved || o.Unresolved
	}
	validate(vs, n)
	for _, pr := range vs.list {
		if !decoded[pr.Pos] {
			ps.list = append(ps.list, pr)
		}
	}
	ps.dropped += vs.dropped
	if err := ps.err(); err != nil {
		return nil, err
	}
	n.Settings.allowed = vs.allow
	return n, nil
}

// allowAll in the allowed set stands for every setting (Options.ReadOnly).
const allowAll = "*"

// allowed is the set of settings opts allow.
func allowed(opts []Options) map[string]bool {
	m := map[string]bool{}
	for _, o := range opts {
		if o.ReadOnly {
			m[allowAll] = true
		}
		for _, name := range o.AllowSettings {
			m[name] = true
		}
	}
	return m
}

// Decode reads a plan's YAML strictly: unknown fields, values of the
// wrong kind and duplicate keys are problems, all of them reported at once
// (a *PlanError). The plan is as written, without defaults (see
// Normalize); it is returned even when some values did not decode (they
// are left zero), so that their neighbours can still be checked. A YAML
// syntax error or an empty file gives no plan.
func Decode(file string, data []byte) (*Plan, error) {
	p, ps, err := decode(file, data)
	if err != nil {
		return nil, err
	}
	return p, ps.err()
}

func decode(file string, data []byte) (*Plan, *problems, error) {
	ps := &problems{file: file}
	if len(data) > MaxPlanSize {
		return nil, nil, &PlanError{File: file, Problems: []Problem{{Pos: Pos{File: file, Line: 1, Col: 1},
			Msg: fmt.Sprintf("the plan is larger than %d bytes (host ranges such as node[01-81] keep big topologies short)", MaxPlanSize)}}}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, &PlanError{File: file, Problems: []Problem{{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "the plan is empty"}}}
		}
		return nil, nil, syntaxError(file, err, data)
	}
	// A second document would be silently ignored: refuse it.
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, nil, syntaxError(file, err, data)
	default:
		line, col := more.Line, more.Column
		if len(more.Content) > 0 {
			line, col = more.Content[0].Line, more.Content[0].Column
		}
		return nil, nil, &PlanError{File: file, Problems: []Problem{{Pos: Pos{File: file, Line: line, Col: col},
			Msg: "a second YAML document: a plan is one document (remove the '---' line)"}}}
	}
	p := &Plan{File: file, Dir: filepath.Dir(file), pos: nodeOf{}}
	decodeStrict(ps, &doc, reflect.ValueOf(p).Elem(), "", p.pos)
	p.index()
	return p, ps, nil
}

// syntaxError turns yaml.v3's "yaml: line N: msg" into file:line:col.
// Errors of the reader (invalid UTF-8, control characters) come without
// a line: the first offending byte is found here instead.
func syntaxError(file string, err error, data []byte) error {
	text := strings.TrimPrefix(err.Error(), "yaml: ")
	pos := Pos{File: file}
	if n, _ := fmt.Sscanf(text, "line %d:", &pos.Line); n == 1 {
		_, text, _ = strings.Cut(text, ": ")
		pos.Col = 1
	} else {
		pos.Line, pos.Col = badByte(data)
	}
	return &PlanError{File: file, Problems: []Problem{{Pos: pos, Msg: "YAML syntax: " + text}}}
}

// badByte is the line and column (in bytes, 1-based) of the first byte
// that is not valid UTF-8 or is a control character other than tab, CR
// and LF; 1:1 when there is none (or the file is UTF-16).
func badByte(data []byte) (line, col int) {
	line, start := 1, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if (r == utf8.RuneError && n <= 1) || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return line, i - start + 1
		}
		if r == '\n' {
			line, start = line+1, i+1
		}
		i += n
	}
	return 1, 1
}

// node returns the YAML node a field of p was decoded from (nil if
// absent): field is a pointer into p, as in p.node(&p.TPCC.Warehouses).
func (p *Plan) node(field any) *yaml.Node {
	path, ok := p.paths[field]
	if !ok {
		return nil
	}
	return p.pos[path]
}

// index records where p's fields are, for node. It is called on every new
// plan value (decoding, Normalize), never by a check.
func (p *Plan) index() {
	p.paths = fieldPaths{}
	indexFields(reflect.ValueOf(p).Elem(), "", p.paths)
}
