package crdb

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Version is a CockroachDB release (major.minor). workload's behaviour
// changes between releases, never within one, and the server's built-in
// generator (what a workload:// IMPORT runs) is the release's, so every
// version-dependent statement keys on it, through its Release.
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

// AtLeast reports v >= major.minor. Only this package compares
// releases: everyone else asks a Release (the layout test greps for it).
func (v Version) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

// Generator is the tpcc generator of the release's first patch (its
// Meta.Version): 2.1.0 up to v20.1, 2.2.0 from v20.2. It decides the
// schema layout of benchrig's own loader (the FK indexes every v20.1
// patch needs). What a workload:// source must name depends on the patch
// level (v20.1.9 carries 2.2.0): use Build.Release().Generator there.
func (v Version) Generator() string { return BuildOf(v).Release().SchemaGenerator }

// FKIndexes says whether workload's schema for the release carries the
// foreign-key indexes with --fks (generator 2.1.0; v20.2 made them
// --deprecated-fk-indexes, off by default).
func (v Version) FKIndexes() bool { return BuildOf(v).Release().SchemaFKIndexes }

// ImportInto says whether workload's fixtures import creates the tables
// first and issues IMPORT INTO (true) or IMPORT TABLE t (schema) (false):
// Release.ImportInto.
func (v Version) ImportInto() bool { return BuildOf(v).Release().ImportInto }

// URLPerAffinity says whether workload maps URL j to partition
// affinity[j] (PR #134796, v25.1+) rather than URL j to partition j % P:
// Release.URLPerAffinity.
func (v Version) URLPerAffinity() bool { return BuildOf(v).Release().URLPerAffinity }

// NodeCountQuery is the query workload's fixtures import counts the nodes
// with (Release.NodeCountQuery).
func NodeCountQuery(v Version) string { return BuildOf(v).Release().NodeCountQuery }

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

// atLeast reports b >= from, an unknown patch counting as the newest.
func (b Build) atLeast(from Build) bool {
	if b.Major != from.Major || b.Minor != from.Minor {
		return b.AtLeast(from.Major, from.Minor)
	}
	return b.Patch < 0 || b.Patch >= from.Patch
}

// Querier is what reading the server's release needs of a connection
// (a *pgx.Conn, a *pgxpool.Pool).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
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

// GeneratorVersion is the tpcc generator version of a CockroachDB release
// ("v20.1.17", "20.2.0", or the output of SELECT version()): 2.1.0 up to
// v20.1, 2.2.0 after (Version.Generator).
func GeneratorVersion(crdb string) (string, error) {
	m := versionRE.FindStringSubmatch(crdb)
	if m == nil {
		return "", fmt.Errorf("cockroach version %q: want vMAJOR.MINOR", crdb)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return Version{major, minor}.Generator(), nil
}

// versionRE finds the first MAJOR.MINOR: "v20.1.17", or in SELECT
// version()'s "CockroachDB CCL v20.1.17 (x86_64-unknown-linux-gnu, ...".
var versionRE = regexp.MustCompile(`(\d{1,4})\.(\d{1,4})`)
