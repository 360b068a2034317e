package plan

import (
	"regexp"

	"github.com/benchrig/benchrig/crdb"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// The plan fields that make the cockroach flavor reproduce CockroachDB's
// workload for the cluster's release: the version, the import method,
// the driver (benchrig's or the official workload binary) and workload's
// partitioning flags.

// Drivers and import methods.
const (
	DriverBenchrig = "benchrig"
	DriverWorkload = "workload"
	ImportIMPORT   = "import"
	ImportCopy     = "copy"
)

// releaseInName finds the release in a CockroachDB download's name, as
// cockroach-v20.1.17.linux-amd64.tgz.
var releaseInName = regexp.MustCompile(`cockroach-(v[0-9]{1,2}\.[0-9](\.[0-9]{1,3})?)`)

// normalizeFidelity applies the defaults: the release from the database
// binary's name, import by IMPORT on cockroach and by copy from every
// workload host on postgres, the embedded driver.
func (n *Plan) normalizeFidelity() {
	t := &n.TPCC
	if n.Flavor == Cockroach && t.CockroachVersion == "" {
		b := n.Binaries.Database
		for _, s := range []string{b.Member, b.URL, b.Path} {
			if m := releaseInName.FindStringSubmatch(s); m != nil {
				t.CockroachVersion = m[1]
				break
			}
		}
	}
	if t.Driver == "" {
		t.Driver = DriverBenchrig
	}
	if t.Profile == "" && t.Driver == DriverBenchrig {
		// workload's load where the published results come from.
		t.Profile = string(runspec.ProfilePipelined)
		if n.Flavor == Cockroach {
			t.Profile = string(runspec.ProfileWorkload)
		}
	}
	if t.Import.Method == "" {
		t.Import.Method = ImportCopy
		if n.Flavor == Cockroach {
			t.Import.Method = ImportIMPORT
		}
	}
	if t.Import.Hosts == "" {
		// split_load: true, the older spelling, also meant every host.
		t.Import.Hosts = "all"
		if n.Flavor == Cockroach && !t.SplitLoad {
			t.Import.Hosts = "first" // the recipes import from one host
		}
	}
	if t.Import.FilesPerNode == 0 {
		t.Import.FilesPerNode = 1
	}
	if t.PartitionStrategy == "" {
		t.PartitionStrategy = "replication"
	}
}

// Release is the plan's CockroachDB release, looked up once from
// tpcc.cockroach_version (which normalize takes from the database
// binary's name): what the plan's validation and the stages ask instead
// of comparing versions. ok is false when the plan does not say
// (postgres, or a binary whose name has none). A version whose patch
// level is malformed (refused by validateFidelity) still names its
// release, so the other checks of that release run too.
func (p *Plan) Release() (rel crdb.Release, ok bool) {
	b, err := crdb.ParseBuild(p.TPCC.CockroachVersion)
	if err != nil {
		v, err := crdb.ParseVersion(p.TPCC.CockroachVersion)
		if err != nil {
			return crdb.Release{}, false
		}
		b = crdb.BuildOf(v)
	}
	return b.Release(), true
}

// CockroachRelease is the plan's CockroachDB release; ok is false when
// the plan does not say (postgres, or a binary whose name has none).
func (p *Plan) CockroachRelease() (v crdb.Version, ok bool) {
	v, err := crdb.ParseVersion(p.TPCC.CockroachVersion)
	return v, err == nil
}

// CockroachBuild is the plan's CockroachDB release with its patch level
// (cockroach-v20.1.17 -> v20.1.17; a plan saying only v20.1 gives the
// patch level unknown), which picks workload's behaviour per patch
// (crdb.Build.Release); ok is false as for CockroachRelease.
func (p *Plan) CockroachBuild() (b crdb.Build, ok bool) {
	b, err := crdb.ParseBuild(p.TPCC.CockroachVersion)
	return b, err == nil
}

// zoneName is what workload accepts in --zones (a locality value).
var zoneName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

func validateFidelity(ps *problems, p *Plan) {
	t := &p.TPCC
	if p.Flavor == Cockroach {
		// Unknown (not in the binary's name, not given), the driver asks
		// the server at run time and the dry-run says it cannot list the
		// release's statements.
		if _, err := crdb.ParseBuild(t.CockroachVersion); t.CockroachVersion != "" && err != nil {
			ps.at(p.node(&t.CockroachVersion), "tpcc.cockroach_version: %v", err)
		}
	} else if t.CockroachVersion != "" {
		ps.at(p.node(&t.CockroachVersion), "tpcc.cockroach_version: only for the cockroach flavor")
	}
	switch t.Driver {
	case DriverBenchrig:
	case DriverWorkload:
		if p.Flavor != Cockroach {
			ps.at(p.node(&t.Driver), "tpcc.driver: workload runs against CockroachDB only (the cockroach flavor)")
		}
		// Without binaries.workload the workload hosts run the
		// database binary's own `cockroach workload`.
		if t.Import.Method == ImportCopy {
			ps.at(p.node(&t.Import.Method), "tpcc.import.method: copy is benchrig's loader; with driver: workload the import is workload fixtures import")
		}
		if len(t.Extra) > 0 || t.Search != nil || t.Sweep != nil || t.Repeat > 1 {
			ps.at(p.node(&t.Driver), "tpcc.driver: workload runs the recipe's commands; extra_flags, search, sweep and repeat are benchrig driver features")
		}
	default:
		ps.at(p.node(&t.Driver), "tpcc.driver: want benchrig or workload, got %q", t.Driver)
	}
	if b := p.Binaries.Workload; b != nil {
		checkBinary(ps, p, b, "binaries.workload", false)
		if b.Path != "" && b.SHA256 == "" {
			ps.at(p.nodeOr(b), "binaries.workload: give sha256, so every host can verify the binary it runs")
		}
	}
	if t.Profile != "" {
		if _, err := runspec.ParseProfile(t.Profile); err != nil {
			ps.at(p.node(&t.Profile), "tpcc.profile: %v", err)
		} else if t.Driver == DriverWorkload {
			ps.at(p.node(&t.Profile), "tpcc.profile: the embedded driver's load profile; driver: workload runs workload itself")
		}
	}
	switch t.Import.Method {
	case ImportCopy:
	case ImportIMPORT:
		if p.Flavor != Cockroach {
			ps.at(p.node(&t.Import.Method), "tpcc.import.method: import issues CockroachDB IMPORT statements; postgres loads with copy")
		}
	default:
		ps.at(p.node(&t.Import.Method), "tpcc.import.method: want import or copy, got %q", t.Import.Method)
	}
	if t.Import.Hosts != "all" && t.Import.Hosts != "first" {
		ps.at(p.node(&t.Import.Hosts), "tpcc.import.hosts: want all or first, got %q", t.Import.Hosts)
	}
	checkRange(ps, p.nodeOr(&t.Import.FilesPerNode), "tpcc.import.files_per_node", t.Import.FilesPerNode, 1, 1000)
	if _, err := crdb.ParsePartitionStrategy(t.PartitionStrategy); err != nil {
		ps.at(p.node(&t.PartitionStrategy), "tpcc.partition_strategy: %v", err)
	}
	if len(t.Zones) > 0 {
		if len(t.Zones) != t.Partitions {
			ps.at(p.node(&t.Zones), "tpcc.zones: %d zones for %d partitions; give one per partition", len(t.Zones), t.Partitions)
		}
		for _, z := range t.Zones {
			if !zoneName.MatchString(z) {
				ps.at(p.node(&t.Zones), "tpcc.zones: %q is not a locality value (letters, digits, . _ -)", z)
			}
		}
	}
}
