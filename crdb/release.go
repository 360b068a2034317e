package crdb

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Release is everything benchrig does differently for one CockroachDB
// build: what its workload generates and sends, how its nodes start, log
// and stop, what a session must say before reading crdb_internal, which
// cluster settings it still has and whether it needs a licence. It is
// looked up once from the build (Build.Release, from the plan's binary
// name or cockroach_version, or from the server) and the plan's
// validation, the stages and the driver ask it; nothing outside this
// package compares versions. A release whose behaviour changed is a new
// entry of changes (with its source), not an if in each stage. The facts
// and their sources (pkg/...:LINE at a commit of the release branch) are
// in docs/fidelity/v20.1.md and docs/fidelity/v25.4.md.
type Release struct {
	// Build is the build the facts were chosen for.
	Build Build

	// Generator is workload's tpcc Meta.Version, the version= of every
	// workload:// source: a node refuses a source naming another
	// (pkg/ccl/importccl/read_import_workload.go).
	Generator string
	// SchemaGenerator is the generator of the release's first patch,
	// whose layout benchrig's own loader creates (Version.Generator):
	// 2.1.0 up to v20.1 (the FK indexes every v20.1 patch needs), 2.2.0
	// from v20.2.
	SchemaGenerator string
	// SourceFlags are the generator's flags beyond seed, warehouses and
	// fks that workload's csvServerPaths sends (every flag not
	// RuntimeOnly), with their default values; nil when benchrig does not
	// know the release's flag set (the caller must give them).
	SourceFlags url.Values
	// SchemaFKIndexes: the schema carries the foreign-key indexes by
	// default (with --fks on generator 2.1.0, with
	// --deprecated-fk-indexes, default true on release-20.1, from 2.2.0;
	// v20.2 made them off by default).
	SchemaFKIndexes bool
	// ReplicateStaticColumns: workload has --replicate-static-columns
	// (v20.2+).
	ReplicateStaticColumns bool
	// PartitionFKIndexes: the partitioning partitions the FK indexes of
	// order_line and history (v20.1.0-.8; PR #55892 dropped them).
	PartitionFKIndexes bool
	// PartitionOrderIdx: the partitioning reaches "order"@order_idx.
	// v20.1.0-.8 looked the index up under the quoted table name
	// ("order" with its quotes) in information_schema, found nothing and
	// skipped it silently; v20.1.9 strips the quotes.
	PartitionOrderIdx bool
	// StatsTables are the tables with injected statistics, in workload's
	// Tables() order (5 up to v20.1.6; all 9 from v20.1.7, PR #54715).
	StatsTables []string
	// ItemReplicaPrefix names item's per-partition covering indexes:
	// replicated_idx_<i> (replicateItem, v19.2-v20.2) or item_idx_<i>
	// (replicateColumns, PR #56191, the v21.1 cycle).
	ItemReplicaPrefix string
	// ImportInto: workload's fixtures import creates the tables first and
	// issues IMPORT INTO (true) or IMPORT TABLE t (schema) (false).
	// fixture.go issued IMPORT TABLE through v21.2; IMPORT with an inline
	// schema was deprecated in v21.2 and workload moved to CREATE TABLE
	// IF NOT EXISTS + IMPORT INTO for v22.1.
	ImportInto bool
	// NodeCountQuery is the query workload's fixtures import counts the
	// nodes with, to give each one its share of the workload:// sources:
	// crdb_internal.gossip_liveness (with the explicit empty database
	// prefix, so it works before the database exists) up to v21.2, and
	// the SQL instances from v22.1, where system.sql_instances exists and
	// workload moved to it (the same release as IMPORT INTO).
	NodeCountQuery string
	// URLPerAffinity: workload maps URL j to partition affinity[j] and
	// makes --workers workers over the host's own warehouses (PR #134796,
	// v25.1+), rather than URL j to partition j % P and worker slots over
	// every active warehouse.
	URLPerAffinity bool

	// DeliveryEmptyDistrictFails: workload's Delivery fails the whole
	// transaction when a district has no undelivered order, where
	// clause 2.7.4.2 skips the district. v20.1's code means to skip it
	// but tests the error against database/sql's ErrNoRows while its
	// pgx v3 statements return pgx's, so the error is returned (and
	// counted as a skipped delivery): pkg/workload/tpcc/delivery.go:101-107
	// at 0cb10f369a (docs/fidelity/v20.1.md D15). Later releases were not
	// read for it (their plans run workload's own binary).
	//
	// fidelity:v20.1/D15
	DeliveryEmptyDistrictFails bool

	// WorkloadPoolPingsIdle: workload's connection pools are pgxpool v5,
	// whose Acquire pings a connection idle for more than a second (one
	// more round trip before such a transaction: most of a wait-mode
	// run's); v20.1's pgx v3 pool does not (docs/fidelity/v25.4.md, "the
	// embedded driver's round trips on v25.x"). Set from v25.1, the
	// releases whose sources were read; the release that moved workload
	// to pgx v5 was not pinned down.
	WorkloadPoolPingsIdle bool

	// Stop is how one node is stopped while the rest of the cluster
	// serves (the rolling binary swap).
	Stop Stop
	// ClusterStopGrace is how long, in seconds, a node has to exit after
	// SIGTERM when the whole cluster is stopped (teardown) before it is
	// killed. The release's documentation stops a test cluster by
	// stopping every node in turn without waiting between them (v20.1:
	// `cockroach quit` each node, start-a-local-cluster.md Step 7 and
	// the TPC-C 10-warehouse page's Clean up; v25.4: `kill -TERM` each
	// node, performance-benchmarking-with-tpcc-local.md Step 5 and
	// start-a-local-cluster.md Step 7), and says the nodes left once a
	// majority of replicas is gone take "about a minute" and are then
	// forced to stop. A node drain (Stop) would instead wait out
	// --drain-wait (10 minutes) on every node after quorum is lost.
	//
	// fidelity:v25.4/49
	ClusterStopGrace int
	// LogConfig: `cockroach start` takes its logging as YAML in --log
	// (v21.1+); before, a node logs to its store's logs directory.
	LogConfig bool
	// UnsafeInternals: crdb_internal is an "unsafe internal", readable
	// only while allow_unsafe_internals is on (v25.4+).
	UnsafeInternals bool
	// License is what the release asks of a licence key: before v24.3
	// partitioning is an enterprise feature that needs one; from v24.3
	// (LicenseOptionalFrom) no feature is gated and a key is optional,
	// but an unlicensed multi-node cluster runs 7 days from init and is
	// then throttled to 5 concurrent open transactions.
	//
	// fidelity:v25.4/14 fidelity:v25.4/15
	License License

	// HistogramSuffix ends the name of a measured run's --histograms file:
	// the recipes' .histogram.ndjson, and from v24.3 .histogram.json,
	// because that release's workload writes histograms through a json
	// exporter (--histogram-export-format, default json, PR #129221)
	// whose Validate refuses a path not ending in .json before the run
	// starts (HistogramJSONOnly).
	//
	// fidelity:v25.4/42
	HistogramSuffix   string
	HistogramJSONOnly bool

	// LeaseQueue: lease transfers are the lease queue's work
	// (queue.lease.pending), v24.1+ (PR #119155); before, the replicate
	// queue moved leases too. The settle wait sums every queue that moves
	// leases or replicas (SettleStatements).
	//
	// fidelity:v25.4/43
	LeaseQueue bool

	// WorkloadRunFlags are the flags of the release's `workload run
	// tpcc` (run, shared, connection and generator flags): a plan's extra
	// flags for driver: workload must be among them (CheckWorkloadFlag).
	//
	// fidelity:v20.1/S74 fidelity:v25.4/44
	WorkloadRunFlags map[string]bool

	// Resources are what a node keeps for itself (open files) and how
	// fast it moves replicas (snapshot rates): the needs model's figures
	// (resources.go).
	Resources Resources
}

// License is a release's licence rule (Release.License).
type License int

const (
	// LicenseForPartitioning: partitioning (PARTITION BY, the recipes'
	// partitioned tables) needs an enterprise licence (up to v24.2).
	LicenseForPartitioning License = iota
	// LicenseOptional: no feature needs one; an unlicensed multi-node
	// cluster is throttled to 5 concurrent open transactions 7 days
	// after init (v24.3+; single-node clusters never are).
	LicenseOptional
)

// UnlicensedGraceDays is how long a LicenseOptional release runs a
// multi-node cluster without a key before throttling it.
const UnlicensedGraceDays = 7

// Stop is how a release stops a node.
type Stop int

const (
	// StopQuit is `cockroach quit` (up to v20.1; deprecated in v20.2,
	// removed in v22.2); teardown signals the process instead.
	StopQuit Stop = iota
	// StopDrain is `cockroach node drain --self`, then SIGTERM and, after
	// a grace period, SIGKILL: the documented node shutdown from v20.2.
	StopDrain
)

// allStatsTables is workload's Tables() order.
var allStatsTables = []string{"warehouse", "district", "customer", "history", "order", "new_order", "item", "stock", "order_line"}

// Generator versions of CockroachDB's workload tpcc (its Meta.Version,
// the version= parameter of workload:// IMPORT sources); package tpcc
// names the same layouts Version21 and Version22 (a test holds them
// equal).
const (
	Generator21 = "2.1.0"
	Generator22 = "2.2.0"
)

// LicenseOptionalFrom is the first release whose licence is optional
// (Release.License).
var LicenseOptionalFrom = Version{Major: 24, Minor: 3}

// change is one change of CockroachDB's behaviour: from the build from
// on (inclusive), apply changes the facts of the entries before. source
// says where it is read (a PR, a docs/fidelity file); the conformance
// tests of the change sit beside the entry in release_test.go.
type change struct {
	from   Build
	source string
	apply  func(*Release)
}

// changes are in order. The first entry is the baseline: v20.1.0's
// workload and node commands (older releases are not claimed; they get
// v20.1.0's facts, and so does a release not known at all).
//
// fidelity:v20.1/S8 fidelity:v20.1/S9 fidelity:v20.1/S10 fidelity:v20.1/S12 fidelity:v20.1/S13 fidelity:v20.1/S14 fidelity:v20.1/S19 fidelity:v20.1/S20
var changes = []change{
	{
		from:   Build{},
		source: "docs/fidelity/v20.1.md",
		apply: func(r *Release) {
			r.Generator, r.SchemaGenerator = Generator21, Generator21
			r.SourceFlags = url.Values{"interleaved": {"false"}}
			r.SchemaFKIndexes, r.PartitionFKIndexes, r.PartitionOrderIdx = true, true, false
			r.StatsTables = []string{"customer", "new_order", "item", "stock", "order_line"}
			r.ItemReplicaPrefix = "replicated_idx_"
			r.NodeCountQuery = `SELECT count(node_id) FROM "".crdb_internal.gossip_liveness`
			r.Stop = StopQuit
			r.ClusterStopGrace = 60
			r.DeliveryEmptyDistrictFails = true
			r.License = LicenseForPartitioning
			r.HistogramSuffix = ".histogram.ndjson"
			r.WorkloadRunFlags = workloadRunFlags201
			r.Resources = resources201
		},
	},
	{
		from:   Build{Version{20, 1}, 7},
		source: "PR #54715 (backport of #54713), merged 2020-09-24: statistics for warehouse, district, history and order too",
		apply:  func(r *Release) { r.StatsTables = allStatsTables },
	},
	{
		from:   Build{Version{20, 1}, 9},
		source: "PR #55892, merged 2020-10-31: master's workload on release-20.1",
		apply: func(r *Release) {
			r.Generator = Generator22
			r.SourceFlags = url.Values{"deprecated-fk-indexes": {"true"}, "interleaved": {"false"}}
			r.PartitionFKIndexes, r.PartitionOrderIdx = false, true
		},
	},
	{
		from:   Build{Version{20, 2}, 0},
		source: "PR #53367: --deprecated-fk-indexes defaults to false; --replicate-static-columns; node drain replaces quit",
		apply: func(r *Release) {
			r.SchemaGenerator = Generator22
			r.SourceFlags = url.Values{"deprecated-fk-indexes": {"false"}, "interleaved": {"false"}}
			r.SchemaFKIndexes = false
			r.ReplicateStaticColumns = true
			r.Stop = StopDrain
		},
	},
	{
		from:   Build{Version{21, 1}, 0},
		source: "docs#9774: families and replicate-static-columns are generator flags; PR #56191: item_idx_<i>; --log YAML",
		apply: func(r *Release) {
			r.SourceFlags = url.Values{"deprecated-fk-indexes": {"false"}, "families": {"false"}, "interleaved": {"false"},
				"replicate-static-columns": {"false"}}
			r.ItemReplicaPrefix = "item_idx_"
			r.LogConfig = true
		},
	},
	{
		from:   Build{Version{21, 2}, 0},
		source: "v21.2 removed interleaved and added flags benchrig does not list",
		apply:  func(r *Release) { r.SourceFlags = nil },
	},
	{
		from:   Build{Version{22, 1}, 0},
		source: "v22.1's fixtures: IMPORT TABLE ... CSV DATA gives way to CREATE TABLE IF NOT EXISTS + IMPORT INTO; the nodes are counted in system.sql_instances, not crdb_internal.gossip_liveness; PR #71814: kv.snapshot_rebalance.max_rate defaults to 32 MiB",
		apply: func(r *Release) {
			r.ImportInto = true
			r.Resources.RebalanceRate = 32 << 20
			r.NodeCountQuery = `SELECT count(1) FROM system.sql_instances WHERE addr IS NOT NULL`
		},
	},
	{
		from:   Build{Version{23, 2}, 0},
		source: "PR #102596: kv.snapshot_recovery.max_rate removed; every snapshot, up-replication's too, at kv.snapshot_rebalance.max_rate",
		apply: func(r *Release) {
			r.Resources.UpreplicateSetting, r.Resources.UpreplicateRate = r.Resources.RebalanceSetting, r.Resources.RebalanceRate
		},
	},
	{
		from:   Build{Version{24, 1}, 0},
		source: "PR #119155: lease transfers move to the lease queue (queue.lease.pending); four RPC connection classes to each node (default, system, rangefeed, raft: pkg/rpc/rpcbase/connection_class.go, master f3af7ae028, whose escape hatch reverts raft's own class to the pre-v24.1 state)",
		apply:  func(r *Release) { r.LeaseQueue, r.Resources.RPCClasses = true, 4 },
	},
	{
		from:   Build{LicenseOptionalFrom, 0},
		source: "licensing-faqs: no feature gated, a 7-day grace then throttling (PR #131943); PR #129221: --histogram-export-format, a json exporter that wants a .json file (docs/fidelity/v25.4.md 15, 42)",
		apply: func(r *Release) {
			r.License = LicenseOptional
			r.HistogramSuffix, r.HistogramJSONOnly = ".histogram.json", true
		},
	},
	{
		from:   Build{Version{25, 1}, 0},
		source: "PR #134796: URL j serves affinity[j]; generator flags of current.go; pgxpool v5 pings idle connections (docs/fidelity/v25.4.md)",
		apply: func(r *Release) {
			r.URLPerAffinity = true
			r.WorkloadPoolPingsIdle = true
			r.SourceFlags = currentSourceFlags()
			r.WorkloadRunFlags = workloadRunFlagsCurrent
		},
	},
	{
		from:   Build{Version{25, 4}, 0},
		source: "docs/fidelity/v25.4.md: crdb_internal is an unsafe internal",
		apply:  func(r *Release) { r.UnsafeInternals = true },
	},
}

// Release returns the facts of b (the zero Build: the baseline's).
func (b Build) Release() Release {
	r := Release{Build: b}
	for _, c := range changes {
		if b.atLeast(c.from) {
			c.apply(&r)
		}
	}
	return r
}

// HasStats says whether workload injects statistics into table.
func (r Release) HasStats(table string) bool { return slices.Contains(r.StatsTables, table) }

// BeforeInternals are the statements a session runs before it reads
// crdb_internal (the replication wait).
func (r Release) BeforeInternals() []string {
	if r.UnsafeInternals {
		return []string{"SET allow_unsafe_internals = on"}
	}
	return nil
}

// SettleStatements are the session's statements of the wait for
// up-replication and partitioning: BeforeInternals, then the release's
// settle criterion (ReplicationSettledSQL: with the lease queue from
// v24.1).
//
// fidelity:v25.4/43 fidelity:v20.1/S72 fidelity:v25.4/22 fidelity:v25.4/23
func (r Release) SettleStatements(replicas int) []string {
	q := []string{"queue.replicate.pending"}
	if r.LeaseQueue {
		q = append(q, "queue.lease.pending")
	}
	return append(r.BeforeInternals(), settledSQL(replicas, q))
}

// RetiredSetting says whether the release no longer has cluster setting
// name, and which release removed it.
func (r Release) RetiredSetting(name string) (removedIn Version, gone bool) {
	v, ok := RetiredIn(name)
	return v, ok && r.Build.AtLeast(v.Major, v.Minor)
}

// ReplicationSettledSQL is a cheap test that up-replication has finished:
// it fails (SQLSTATE 55000, so a poll loop retries) while any range has
// fewer than replicas replicas or a store's replicate queue has work.
// crdb_internal.ranges_no_leases reads range descriptors only, where
// crdb_internal.ranges asks every range's leaseholder for its lease (one
// RPC per range: minutes on the 100k recipe's ranges).
//
// (The rows cite Release.SettleStatements, which the stages call; this
// is v20.1's statement alone, for callers without a release.)
func ReplicationSettledSQL(replicas int) string {
	return settledSQL(replicas, []string{"queue.replicate.pending"})
}

// settledSQL is ReplicationSettledSQL over the stores' pending replicas
// of the given queues (metric names, constants).
func settledSQL(replicas int, queues []string) string {
	var sum []string
	for _, q := range queues {
		sum = append(sum, fmt.Sprintf("(metrics->>'%s')::INT8", q))
	}
	return fmt.Sprintf(`SELECT CASE WHEN
 (SELECT count(*) FROM crdb_internal.ranges_no_leases WHERE array_length(replicas, 1) < %d) > 0
 OR (SELECT coalesce(sum(%s), 0) FROM crdb_internal.kv_store_status) > 0
 THEN crdb_internal.force_error('55000', 'up-replication and partitioning not finished')
 ELSE 0 END`, replicas, strings.Join(sum, " + "))
}

// HistogramOK says whether the release's workload accepts name as its
// --histograms file; the error says why not.
func (r Release) HistogramOK(name string) error {
	if r.HistogramJSONOnly && !strings.HasSuffix(name, ".json") {
		return fmt.Errorf("CockroachDB %s's workload refuses a --histograms file whose name does not end in .json (its json exporter, PR #129221): name it like workload1%s", r.Build, r.HistogramSuffix)
	}
	return nil
}

// CheckWorkloadFlag checks one extra flag for the release's `workload run
// tpcc` (--name or --name=value): it must be one of WorkloadRunFlags, and
// --histogram-export-format may only be json (benchrig merges json).
func (r Release) CheckWorkloadFlag(f string) error {
	name, val, hasVal := strings.Cut(strings.TrimLeft(f, "-"), "=")
	if !strings.HasPrefix(f, "--") || name == "" {
		return fmt.Errorf("%q is not a flag: give each as --name or --name=value", f)
	}
	if !r.WorkloadRunFlags[name] {
		return fmt.Errorf("--%s is not a flag of CockroachDB %s's `workload run tpcc`", name, r.Build)
	}
	if name == "histogram-export-format" && (!hasVal || val != "json") {
		return fmt.Errorf("--histogram-export-format: benchrig merges workload's json histograms; give --histogram-export-format=json or leave it out")
	}
	return nil
}
