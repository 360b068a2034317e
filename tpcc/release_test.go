package tpcc

import (
	"strings"
	"testing"
	"time"
)

func TestParseBuild(t *testing.T) {
	for in, want := range map[string]Build{
		"v20.1.17": {Version{20, 1}, 17}, "20.1.8": {Version{20, 1}, 8}, "v20.1": {Version{20, 1}, -1},
		"v25.1.0-beta.2": {Version{25, 1}, 0}, " v23.1.11 ": {Version{23, 1}, 11}, "v20.1.0": {Version{20, 1}, 0},
	} {
		got, err := ParseBuild(in)
		if err != nil || got != want {
			t.Errorf("ParseBuild(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "v20", "v20.1.x", "v20.1.-1", "v20.1.1000", "v20.1.08", "v20.10.1"} {
		if b, err := ParseBuild(in); err == nil {
			t.Errorf("ParseBuild(%q) = %v", in, b)
		}
	}
	if (Build{}).Given() || !(BuildOf(Version{20, 1})).Given() || BuildOf(Version{20, 1}).PatchKnown() {
		t.Error("Given/PatchKnown")
	}
}

// TestReleaseFacts pins the per-patch-level facts of release-20.1 (see
// docs/fidelity/v20.1.md for the source lines): generator 2.1.0 up to
// v20.1.8 and 2.2.0 with deprecated-fk-indexes=true from v20.1.9 (PR
// #55892); statistics for 5 tables up to v20.1.6 and 9 from v20.1.7 (PR
// #54715); order_idx skipped and FK indexes partitioned up to v20.1.8,
// the reverse after; replicated_idx_<i> through v20.2, item_idx_<i> from
// v21.1. An unknown patch level is the newest.
func TestReleaseFacts(t *testing.T) {
	for _, tc := range []struct {
		build        string
		gen          string
		dfk          string // deprecated-fk-indexes in the sources ("" none)
		stats        int
		orderIdx, fk bool // partitioned
		schemaFK     bool
		item         string
	}{
		{"v20.1.0", "2.1.0", "", 5, false, true, true, "replicated_idx_"},
		{"v20.1.6", "2.1.0", "", 5, false, true, true, "replicated_idx_"},
		{"v20.1.7", "2.1.0", "", 9, false, true, true, "replicated_idx_"},
		{"v20.1.8", "2.1.0", "", 9, false, true, true, "replicated_idx_"},
		{"v20.1.9", "2.2.0", "true", 9, true, false, true, "replicated_idx_"},
		{"v20.1.17", "2.2.0", "true", 9, true, false, true, "replicated_idx_"},
		{"v20.1", "2.2.0", "true", 9, true, false, true, "replicated_idx_"},
		{"v19.2.12", "2.1.0", "", 5, false, true, true, "replicated_idx_"},
		{"v20.2.0", "2.2.0", "false", 9, true, false, false, "replicated_idx_"},
		{"v21.1.3", "2.2.0", "false", 9, true, false, false, "item_idx_"},
	} {
		b, err := ParseBuild(tc.build)
		if err != nil {
			t.Fatal(err)
		}
		r := b.Release()
		if r.Generator != tc.gen || r.SourceFlags.Get("deprecated-fk-indexes") != tc.dfk || len(r.StatsTables) != tc.stats ||
			r.PartitionOrderIdx != tc.orderIdx || r.PartitionFKIndexes != tc.fk || r.SchemaFKIndexes != tc.schemaFK ||
			r.ItemReplicaPrefix != tc.item || r.Build != b {
			t.Errorf("%s: %+v", tc.build, r)
		}
	}
	if r := (Build{Version{22, 1}, 0}).Release(); r.SourceFlags != nil || !r.ImportInto {
		t.Errorf("v22.1: %+v", r)
	}
}

// TestStatsCreatedAt: the statistics carry the import's time in
// workload's format (UTC, microseconds), never a fixed old date.
func TestStatsCreatedAt(t *testing.T) {
	at := time.Date(2026, 12, 4, 15, 4, 5, 123456789, time.FixedZone("x", 3600))
	plan, err := PlanImport(ImportOptions{Version: Version{20, 1}, Build: Build{Version{20, 1}, 17}, Warehouses: 1, Seed: 1, FKs: true, Nodes: 1,
		InjectStats: true, StatsCreatedAt: at, Schema: ImportSchema(Version{20, 1}, true)})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range plan.Imports {
		if want := `"created_at":"2026-12-04 14:04:05.123457+00:00"`; !strings.Contains(ti.Stats, want) {
			t.Errorf("%s: no %s in %.200s", ti.Table, want, ti.Stats)
		}
	}
}

func FuzzParseBuild(f *testing.F) {
	for _, s := range []string{"v20.1.17", "v20.1", "v25.1.0-beta.2", "20.2.3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBuild(s)
		if err == nil {
			if b2, err := ParseBuild(b.String()); err != nil || b2 != b {
				t.Errorf("%q -> %v does not round-trip", s, b)
			}
			_ = b.Release()
		}
	})
}
