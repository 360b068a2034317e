package tpcc

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestImportPlanGolden pins the statements `tpcc import` issues for the
// four shipped plans at their own build (v20.1.17: generator 2.2.0 with
// deprecated-fk-indexes=true, statistics for all nine tables) and at
// v20.1.8 and v20.1.6 (2.1.0; 9 and 5 tables with statistics), checked
// against the release-20.1 source (docs/fidelity/v20.1.md): one IMPORT
// TABLE per table with Nodes*FilesPerNode workload:// sources cut as
// csvServerPaths does, nullif='NULL', then the statistics, the ten NOT
// VALID FKs and, for 10k and 100k, the partitioning.
func TestImportPlanGolden(t *testing.T) {
	b := func(s string) Build {
		b, err := ParseBuild(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	v17, v8 := b("v20.1.17"), b("v20.1.8")
	for _, tc := range []struct {
		name                  string
		b                     Build
		w, nodes, files, part int
		split, scatter        bool
		gen                   string
		statsTables           int
	}{
		{"import_tpcc-10_v20.1.17", v17, 10, 3, 1, 0, false, false, "2.2.0", 9},
		{"import_tpcc-1k_v20.1.17", v17, 1000, 3, 1, 0, false, false, "2.2.0", 9},
		{"import_tpcc-10k_v20.1.17", v17, 10000, 15, 1, 5, false, false, "2.2.0", 9},
		{"import_tpcc-100k_v20.1.17", v17, 100000, 81, 1, 27, false, false, "2.2.0", 9},
		{"import_tpcc-100k_v20.1.8", v8, 100000, 81, 1, 27, false, false, "2.1.0", 9},
		{"import_tpcc-10_v20.1.6", b("v20.1.6"), 10, 3, 1, 0, false, false, "2.1.0", 5},
		{"import_w25_v20.2_files2_scatter", b("v20.2"), 25, 3, 2, 0, false, true, "2.2.0", 9},
		{"import_w10_v22.1", b("v22.1"), 10, 3, 1, 0, false, false, "2.2.0", 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ImportOptions{Version: tc.b.Version, Build: tc.b, Warehouses: tc.w, Seed: 1, FKs: true, Nodes: tc.nodes,
				FilesPerNode: tc.files, InjectStats: true, Split: tc.split, Scatter: tc.scatter,
				Partitions: tc.part, Schema: ImportSchema(tc.b.Version, true)}
			if tc.b.AtLeast(21, 1) {
				o.GeneratorFlags = url.Values{"fks": {"true"}}
			}
			plan, err := PlanImport(o)
			if err != nil {
				t.Fatal(err)
			}
			got := plan.Display()
			golden(t, tc.name, got)
			if len(plan.Imports) != 9 {
				t.Fatalf("%d imports", len(plan.Imports))
			}
			stats := 0
			for _, ti := range plan.Imports {
				if ti.Stats != "" {
					stats++
				}
			}
			if stats != tc.statsTables || strings.Contains(got, "2018-") || !strings.Contains(got, StatsNowPlaceholder) {
				t.Errorf("statistics for %d tables (want %d), or an old date, or no placeholder for the import's time", stats, tc.statsTables)
			}
			for _, ti := range plan.Imports {
				want := fmt.Sprintf(`"%s"`, ti.Table)
				if tc.b.ImportInto() {
					want = `IMPORT INTO ` + want + ` CSV DATA ($1,`
				} else {
					want = `IMPORT TABLE ` + want + ` (`
				}
				if !strings.HasPrefix(ti.SQL, want) || !strings.HasSuffix(ti.SQL, fmt.Sprintf(`,$%d) WITH nullif='NULL'`, len(ti.Sources))) {
					t.Errorf("%s: %.60s ... %s", ti.Table, ti.SQL, ti.SQL[len(ti.SQL)-30:])
				}
				files := tc.nodes * tc.files
				if n := len(ti.Sources); n != files && n != files+1 {
					t.Errorf("%s: %d sources for %d files", ti.Table, n, files)
				}
				for _, s := range ti.Sources {
					u, err := url.Parse(s)
					if err != nil || u.Scheme != "workload" || u.Path != "/csv/tpcc/"+ti.Table {
						t.Fatalf("source %s", s)
					}
					q := u.Query()
					if q.Get("version") != tc.gen || q.Get("warehouses") != fmt.Sprint(tc.w) || q.Get("seed") != "1" {
						t.Errorf("source %s", s)
					}
					if dfk := q.Get("deprecated-fk-indexes"); tc.b.Version == (Version{20, 1}) && (dfk == "true") != (tc.gen == "2.2.0") {
						t.Errorf("source %s: deprecated-fk-indexes=%q with generator %s", s, dfk, tc.gen)
					}
				}
			}
			if !strings.Contains(strings.ToLower(got), "alter table order_line add foreign key (ol_supply_w_id, ol_i_id) references stock (s_w_id, s_i_id) not valid;") {
				t.Error("no FKs")
			}
		})
	}
}

// TestSources checks csvServerPaths' cutting: the batch ranges tile
// [0, batches) exactly; an uneven division gets one more, shorter range.
func TestSources(t *testing.T) {
	flags := url.Values{"fks": {"true"}, "interleaved": {"false"}, "seed": {"1"}, "warehouses": {"100000"}}
	for _, tc := range []struct {
		t     ImportTable
		files int
		want  int
	}{
		{ImportTable{"customer", 30000 * 100000}, 81, 82}, // 3e9 = 81*37037037 + 3
		{ImportTable{"item", 100000}, 81, 82},             // 100000 = 81*1234 + 46
		{ImportTable{"warehouse", 27}, 81, 27},            // step 0 -> 1
		{ImportTable{"district", 100}, 10, 10},
	} {
		srcs := Sources(tc.t, "2.1.0", flags, tc.files)
		if len(srcs) != tc.want {
			t.Errorf("%s/%d: %d sources, want %d", tc.t.Name, tc.files, len(srcs), tc.want)
		}
		next := int64(0)
		for _, s := range srcs {
			u, _ := url.Parse(s)
			var a, b int64
			fmt.Sscan(u.Query().Get("row-start"), &a)
			fmt.Sscan(u.Query().Get("row-end"), &b)
			if a != next || b <= a {
				t.Errorf("%s: range [%d,%d) after %d", tc.t.Name, a, b, next)
			}
			next = b
		}
		if next != tc.t.Batches {
			t.Errorf("%s: ranges end at %d, want %d", tc.t.Name, next, tc.t.Batches)
		}
	}
	// Parameters sorted by name, as url.Values.Encode (workload's).
	s := Sources(ImportTable{"item", 100000}, "2.1.0", flags, 1)[0]
	if want := "workload:///csv/tpcc/item?fks=true&interleaved=false&row-end=100000&row-start=0&seed=1&version=2.1.0&warehouses=100000"; s != want {
		t.Errorf("source\n got %s\nwant %s", s, want)
	}
}

func TestImportGeneratorFlagsByVersion(t *testing.T) {
	base := ImportOptions{Warehouses: 10, Seed: 1, FKs: true, Nodes: 3, Schema: ImportSchema(Version{20, 1}, true)}
	for _, tc := range []struct {
		v    string
		want string // the flags of every source, sorted, around row-*/version
	}{
		{"v20.1.0", "fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.1.0&warehouses=10"},
		{"v20.1.8", "fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.1.0&warehouses=10"},
		{"v20.1.9", "deprecated-fk-indexes=true&fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"},
		{"v20.1.17", "deprecated-fk-indexes=true&fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"},
		{"v20.1", "deprecated-fk-indexes=true&fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"},
		{"v20.2", "deprecated-fk-indexes=false&fks=true&interleaved=false&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"},
		{"v21.1", "deprecated-fk-indexes=false&families=false&fks=true&interleaved=false&replicate-static-columns=true&row-end=3&row-start=0&seed=1&version=2.2.0&warehouses=10"},
	} {
		b, err := ParseBuild(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		o := base
		o.Version, o.Build = b.Version, b
		o.ReplicateStaticColumns = b.AtLeast(21, 1)
		plan, err := PlanImport(o)
		if err != nil {
			t.Fatal(err)
		}
		if s := plan.Imports[0].Sources[0]; s != "workload:///csv/tpcc/warehouse?"+tc.want {
			t.Errorf("%s source\n got %s\nwant %s", tc.v, s, tc.want)
		}
	}
	o := base
	o.Version, o.ReplicateStaticColumns = Version{20, 1}, true
	if _, err := PlanImport(o); err == nil || !strings.Contains(err.Error(), "v20.2") {
		t.Errorf("v20.1 with --replicate-static-columns: %v", err)
	}
	o = base
	o.Version = Version{23, 1}
	if _, err := PlanImport(o); err == nil || !strings.Contains(err.Error(), "--generator-flags") {
		t.Errorf("v23.1 without generator flags: %v", err)
	}
	o.GeneratorFlags = url.Values{"fks": {"true"}, "warehouses": {"7"}}
	plan, err := PlanImport(o)
	if err != nil || !strings.Contains(plan.Imports[0].Sources[0], "fks=true&row-end=") || !strings.Contains(plan.Imports[0].Sources[0], "warehouses=10") {
		t.Errorf("explicit generator flags: %v %v", plan, err)
	}
	for _, bad := range []ImportOptions{
		{Version: Version{20, 1}, DB: "tp'cc", Warehouses: 1, Nodes: 1, Schema: base.Schema},
		{Version: Version{20, 1}, Warehouses: 0, Nodes: 1, Schema: base.Schema},
		{Version: Version{20, 1}, Warehouses: 1, Nodes: 0, Schema: base.Schema},
		{Version: Version{20, 1}, Warehouses: 1, Nodes: 1},
	} {
		if _, err := PlanImport(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"v20.1": {20, 1}, "20.2.3": {20, 2}, "v25.1.0-beta.2": {25, 1},
		"v19.2.12": {19, 2}, " v23.1.11 ": {23, 1}} {
		if got, err := ParseVersion(in); err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "v20", "x.y", "v20.10", "v0.1", "20.-1"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) succeeded", in)
		}
	}
	if (Version{20, 1}).Generator() != "2.1.0" || (Version{20, 2}).Generator() != "2.2.0" {
		t.Error("generator versions")
	}
	if NodeCountQuery(Version{20, 1}) != `SELECT count(node_id) FROM "".crdb_internal.gossip_liveness` {
		t.Error("node count query")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v20.1", "v25.1.0-beta.2", "20.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err == nil {
			if v2, err := ParseVersion(v.String()); err != nil || v2 != v {
				t.Errorf("%q -> %v does not round-trip", s, v)
			}
		}
	})
}

func TestSQLString(t *testing.T) {
	if got := SQLString(`a'b`); got != `'a''b'` {
		t.Error(got)
	}
}

func TestSplitStatements(t *testing.T) {
	s := SplitStatements(25)
	// 25 warehouses: splits at 10, 20 in three tables; 999 item splits.
	if s[0] != "ALTER TABLE warehouse SPLIT AT VALUES (10)" || s[2] != "ALTER TABLE warehouse SCATTER FROM (10) TO (20)" ||
		s[3] != "ALTER TABLE district SPLIT AT VALUES (10, 0)" {
		t.Errorf("%q", s[:4])
	}
	if want := 3*3 + 999*2 - 1; len(s) != want {
		t.Errorf("%d statements, want %d", len(s), want)
	}
	if n := len(SplitStatements(10)); n != 999*2-1 { // 10 warehouses: no warehouse split
		t.Errorf("W=10: %d", n)
	}
}
