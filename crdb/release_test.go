package crdb

import "testing"

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

// TestChangesInOrder: the table of changes is sorted by build (each
// entry overrides the ones before) and every entry names its source.
func TestChangesInOrder(t *testing.T) {
	for i, c := range changes {
		if c.source == "" {
			t.Errorf("change %d (%v) has no source", i, c.from)
		}
		if i > 0 && !c.from.atLeast(changes[i-1].from) {
			t.Errorf("change %d (%v) is before change %d (%v)", i, c.from, i-1, changes[i-1].from)
		}
	}
}

// TestReleaseNodeFacts pins what changes with the release outside
// workload's generator: node stop and logging, the unsafe-internals
// switch, the licence, the URL-to-partition mapping, IMPORT INTO and
// its node count query, and the retired settings. An unknown release
// (the zero Build) gets the baseline's, the v20.1 recipes' commands.
func TestReleaseNodeFacts(t *testing.T) {
	for _, tc := range []struct {
		build                                        string
		stop                                         Stop
		log, internals, license, affinity, into, rsc bool
	}{
		{"", StopQuit, false, false, false, false, false, false},
		{"v20.1.17", StopQuit, false, false, false, false, false, false},
		{"v20.2.0", StopDrain, false, false, false, false, false, true},
		{"v21.1", StopDrain, true, false, false, false, false, true},
		{"v22.1.0", StopDrain, true, false, false, false, true, true},
		{"v24.2", StopDrain, true, false, false, false, true, true},
		{"v24.3.0", StopDrain, true, false, true, false, true, true},
		{"v25.1", StopDrain, true, false, true, true, true, true},
		{"v25.3.2", StopDrain, true, false, true, true, true, true},
		{"v25.4", StopDrain, true, true, true, true, true, true},
	} {
		var b Build
		if tc.build != "" {
			var err error
			if b, err = ParseBuild(tc.build); err != nil {
				t.Fatal(err)
			}
		}
		r := b.Release()
		if r.Stop != tc.stop || r.LogConfig != tc.log || r.UnsafeInternals != tc.internals || (r.License == LicenseOptional) != tc.license ||
			r.URLPerAffinity != tc.affinity || r.ImportInto != tc.into || r.ReplicateStaticColumns != tc.rsc {
			t.Errorf("%q: %+v", tc.build, r)
		}
		if got := len(r.BeforeInternals()); got != len(r.SettleStatements(3))-1 || (got == 1) != tc.internals {
			t.Errorf("%q: settle statements %q", tc.build, r.SettleStatements(3))
		}
	}
	v23 := Build{Version{23, 1}, 0}.Release()
	if v, gone := v23.RetiredSetting("sql.distsql.max_running_flows"); !gone || v != (Version{23, 1}) {
		t.Errorf("v23.1: max_running_flows %v %v", v, gone)
	}
	if _, gone := v23.RetiredSetting("storage.value_blocks.enabled"); gone {
		t.Error("v23.1: storage.value_blocks.enabled is retired only in v24.2")
	}
	if _, gone := v23.RetiredSetting("kv.rangefeed.enabled"); gone {
		t.Error("kv.rangefeed.enabled was never retired")
	}
}
