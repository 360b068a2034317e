package tpcc

import "net/url"

// Release is what one CockroachDB build's own workload does where the
// import and the partitioning depend on it, chosen once from the build
// (Build.Release) and consulted by the statements that differ; nothing
// else re-tests the version. A release whose workload changed is a new
// entry of releases, not an if in each stage. The facts and their
// sources (pkg/...:LINE at a commit of the release branch) are in
// docs/fidelity/v20.1.md.
type Release struct {
	// Build is the build the facts were chosen for.
	Build Build
	// Generator is workload's tpcc Meta.Version, the version= of every
	// workload:// source: a node refuses a source naming another
	// (pkg/ccl/importccl/read_import_workload.go).
	Generator string
	// SourceFlags are the generator's flags beyond seed, warehouses and
	// fks that workload's csvServerPaths sends (every flag not
	// RuntimeOnly), with their default values; nil when benchrig does not
	// know the release's flag set (the caller must give them).
	SourceFlags url.Values
	// SchemaFKIndexes: the schema carries the foreign-key indexes by
	// default (with --fks on generator 2.1.0, with
	// --deprecated-fk-indexes, default true on release-20.1, from 2.2.0).
	SchemaFKIndexes bool
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
	// ImportInto, URLPerAffinity and NodeCountQuery changed at minor
	// releases (Version's methods), collected here so that the stages
	// ask one value.
	ImportInto     bool
	URLPerAffinity bool
	NodeCountQuery string
}

// allStatsTables is workload's Tables() order.
var allStatsTables = []string{"warehouse", "district", "customer", "history", "order", "new_order", "item", "stock", "order_line"}

// releaseFacts is one change of workload's behaviour: from the build
// From on (inclusive), apply changes the facts of the entry before.
type releaseFacts struct {
	from  Build
	apply func(*Release)
}

// releases are the changes in order. The first entry is the baseline:
// v20.1.0's workload (older releases are not claimed; they get v20.1.0's
// facts).
var releases = []releaseFacts{
	{Build{Version{1, 0}, 0}, func(r *Release) {
		r.Generator = Version21
		r.SourceFlags = url.Values{"interleaved": {"false"}}
		r.SchemaFKIndexes, r.PartitionFKIndexes, r.PartitionOrderIdx = true, true, false
		r.StatsTables = []string{"customer", "new_order", "item", "stock", "order_line"}
		r.ItemReplicaPrefix = "replicated_idx_"
	}},
	// PR #54715 (backport of #54713), merged 2020-09-24: statistics for
	// warehouse, district, history and order too.
	{Build{Version{20, 1}, 7}, func(r *Release) { r.StatsTables = allStatsTables }},
	// PR #55892, merged 2020-10-31: master's workload on release-20.1.
	{Build{Version{20, 1}, 9}, func(r *Release) {
		r.Generator = Version22
		r.SourceFlags = url.Values{"deprecated-fk-indexes": {"true"}, "interleaved": {"false"}}
		r.PartitionFKIndexes, r.PartitionOrderIdx = false, true
	}},
	// v20.2: --deprecated-fk-indexes defaults to false (PR #53367).
	{Build{Version{20, 2}, 0}, func(r *Release) {
		r.SourceFlags = url.Values{"deprecated-fk-indexes": {"false"}, "interleaved": {"false"}}
		r.SchemaFKIndexes = false
	}},
	// v21.1: families and replicate-static-columns are generator flags
	// (the seven flags docs#9774 shows), item replicas item_idx_<i>.
	{Build{Version{21, 1}, 0}, func(r *Release) {
		r.SourceFlags = url.Values{"deprecated-fk-indexes": {"false"}, "families": {"false"}, "interleaved": {"false"},
			"replicate-static-columns": {"false"}}
		r.ItemReplicaPrefix = "item_idx_"
	}},
	// v21.2 removed interleaved and added flags benchrig does not list.
	{Build{Version{21, 2}, 0}, func(r *Release) { r.SourceFlags = nil }},
	// v25.1+: the generator flags that are not RuntimeOnly are fks, seed,
	// warehouses and families (crdbcurrent.go; docs/fidelity/v25.4.md).
	{Build{Version{25, 1}, 0}, func(r *Release) { r.SourceFlags = currentSourceFlags() }},
}

// Release returns the facts of b's workload.
func (b Build) Release() Release {
	r := Release{Build: b}
	for _, e := range releases {
		if b.atLeast(e.from.Major, e.from.Minor, e.from.Patch) {
			e.apply(&r)
		}
	}
	r.ImportInto, r.URLPerAffinity, r.NodeCountQuery = b.ImportInto(), b.URLPerAffinity(), NodeCountQuery(b.Version)
	return r
}

// HasStats says whether workload injects statistics into table.
func (r Release) HasStats(table string) bool {
	for _, t := range r.StatsTables {
		if t == table {
			return true
		}
	}
	return false
}
