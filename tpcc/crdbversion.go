package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Version is a CockroachDB release (major.minor). workload's behaviour
// changes between releases, never within one, and the server's built-in
// generator (what a workload:// IMPORT runs) is the release's, so every
// version-dependent statement here keys on it.
type Version struct{ Major, Minor int }

// ParseVersion accepts "v20.1", "20.1", "v20.1.17", "v25.1.0-beta.2" and
// the Version field of crdb_internal.node_build_info.
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(t, ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("CockroachDB version %q: want vMAJOR.MINOR[.PATCH]", s)
	}
	major, err1 := strconv.Atoi(parts[0])
	minorText := parts[1]
	if i := strings.IndexAny(minorText, "-+"); i >= 0 {
		minorText = minorText[:i]
	}
	minor, err2 := strconv.Atoi(minorText)
	if err1 != nil || err2 != nil || major < 1 || major > 99 || minor < 0 || minor > 9 {
		return Version{}, fmt.Errorf("CockroachDB version %q: want vMAJOR.MINOR[.PATCH]", s)
	}
	return Version{major, minor}, nil
}

func (v Version) String() string { return fmt.Sprintf("v%d.%d", v.Major, v.Minor) }

// AtLeast reports v >= major.minor.
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// Generator is the tpcc generator of the release's first patch (its
// Meta.Version): 2.1.0 up to v20.1, 2.2.0 from v20.2. It decides the
// schema layout of benchrig's own loader (the FK indexes every v20.1
// patch needs). What a workload:// source must name depends on the patch
// level (v20.1.9 carries 2.2.0): use Build.Release().Generator there.
func (v Version) Generator() string {
	if v.AtLeast(20, 2) {
		return "2.2.0"
	}
	return "2.1.0"
}

// FKIndexes says whether workload's schema for the release carries the
// foreign-key indexes with --fks (generator 2.1.0; v20.2 made them
// --deprecated-fk-indexes, off by default).
func (v Version) FKIndexes() bool { return !v.AtLeast(20, 2) }

// ImportInto says whether workload's fixtures import creates the tables
// first and issues IMPORT INTO (true) or IMPORT TABLE t (schema) (false).
// fixture.go issued IMPORT TABLE through v21.2; IMPORT with an inline
// schema was deprecated in v21.2 and workload moved to CREATE TABLE IF
// NOT EXISTS + IMPORT INTO for v22.1 (cockroach.md §3.6 "≤21.x"), so the
// boundary is v22.1.
func (v Version) ImportInto() bool { return v.AtLeast(22, 1) }

// URLPerAffinity says whether workload maps URL j to partition
// affinity[j] (PR #134796, v25.1+) rather than URL j to partition j % P.
func (v Version) URLPerAffinity() bool { return v.AtLeast(25, 1) }

// NodeCountQuery is the query workload's fixtures import counts the nodes
// with, to give each one its share of the workload:// sources:
// crdb_internal.gossip_liveness (with the explicit empty database prefix,
// so it works before the database exists) up to v21.2, and the SQL
// instances from v22.1, where system.sql_instances exists and workload
// moved to it (the same release as IMPORT INTO; cockroach.md §3.6).
func NodeCountQuery(v Version) string {
	if v.AtLeast(22, 1) {
		return `SELECT count(1) FROM system.sql_instances WHERE addr IS NOT NULL`
	}
	return `SELECT count(node_id) FROM "".crdb_internal.gossip_liveness`
}

// Build is a CockroachDB binary's release down to its patch level:
// workload's behaviour changed within v20.1 (generator 2.2.0 and the
// partitioning fix in v20.1.9, statistics for all tables in v20.1.7), so
// the import and partitioning key on it (Release). Patch is -1 when not
// known (a plan naming "v20.1"): the release's newest patch is assumed.
// The zero Build is "not given".
type Build struct {
	Version
	Patch int
}

// BuildOf is v with its patch level unknown.
func BuildOf(v Version) Build { return Build{v, -1} }

// ParseBuild accepts what ParseVersion does and keeps the patch level
// ("v20.1.17" -> 17; "v20.1" -> unknown; "v25.1.0-beta.2" -> 0).
func ParseBuild(s string) (Build, error) {
	v, err := ParseVersion(s)
	if err != nil {
		return Build{}, err
	}
	b := BuildOf(v)
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".", 3)
	if len(parts) == 3 && !strings.ContainsAny(parts[1], "-+") {
		t := parts[2]
		if i := strings.IndexAny(t, "-+"); i >= 0 {
			t = t[:i]
		}
		p, err := strconv.Atoi(t)
		if err != nil || p < 0 || p > 999 || strconv.Itoa(p) != t {
			return Build{}, fmt.Errorf("CockroachDB version %q: patch level %q is not a number in [0, 999]", s, parts[2])
		}
		b.Patch = p
	}
	return b, nil
}

// Given says whether b was set (the zero Build is not).
func (b Build) Given() bool { return b.Major > 0 }

// PatchKnown says whether b names its patch level.
func (b Build) PatchKnown() bool { return b.Patch >= 0 }

func (b Build) String() string {
	if b.Patch < 0 {
		return b.Version.String()
	}
	return fmt.Sprintf("%s.%d", b.Version, b.Patch)
}

// atLeast reports b >= major.minor.patch, an unknown patch counting as
// the newest.
func (b Build) atLeast(major, minor, patch int) bool {
	if b.Major != major || b.Minor != minor {
		return b.AtLeast(major, minor)
	}
	return b.Patch < 0 || b.Patch >= patch
}

// DetectBuild asks the server its release with the patch level.
func DetectBuild(ctx context.Context, db Querier) (Build, error) {
	var s string
	if err := db.QueryRow(ctx, VersionQuery).Scan(&s); err != nil {
		return Build{}, fmt.Errorf("read CockroachDB version: %w", err)
	}
	return ParseBuild(s)
}

// VersionQuery reads the server's release.
const VersionQuery = `SELECT value FROM crdb_internal.node_build_info WHERE field = 'Version'`

// DetectVersion asks the server its release.
func DetectVersion(ctx context.Context, db Querier) (Version, error) {
	var s string
	if err := db.QueryRow(ctx, VersionQuery).Scan(&s); err != nil {
		return Version{}, fmt.Errorf("read CockroachDB version: %w", err)
	}
	return ParseVersion(s)
}

// ReplicationSettledSQL is a cheap test that up-replication has finished:
// it fails (SQLSTATE 55000, so a poll loop retries) while any range has
// fewer than replicas replicas or a store's replicate queue has work.
// crdb_internal.ranges_no_leases reads range descriptors only, where
// crdb_internal.ranges asks every range's leaseholder for its lease (one
// RPC per range: minutes on the 100k recipe's ranges).
func ReplicationSettledSQL(replicas int) string {
	return fmt.Sprintf(`SELECT CASE WHEN
 (SELECT count(*) FROM crdb_internal.ranges_no_leases WHERE array_length(replicas, 1) < %d) > 0
 OR (SELECT coalesce(sum((metrics->>'queue.replicate.pending')::INT8), 0) FROM crdb_internal.kv_store_status) > 0
 THEN crdb_internal.force_error('55000', 'up-replication and partitioning not finished')
 ELSE 0 END`, replicas)
}
