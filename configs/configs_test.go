package configs

import "testing"

// TestPresets reads every embedded preset: each parses, names a flavor
// and holds settings; an unknown name lists the known ones.
func TestPresets(t *testing.T) {
	names := Presets()
	if len(names) < 3 {
		t.Fatalf("presets: %v", names)
	}
	for _, n := range names {
		p, err := Preset(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if (p.Flavor != "cockroach" && p.Flavor != "postgres") || len(p.Settings) == 0 {
			t.Errorf("%s: flavor %q, %d settings", n, p.Flavor, len(p.Settings))
		}
	}
	if _, err := Preset("../plans/x"); err == nil {
		t.Error("a path was accepted as a preset name")
	}
	p, _ := Preset("crdb-v20.1-tpcc-large")
	if p.ImportReplicas != 1 || p.Replicas != 3 || p.Settings[0].Name != "rocksdb.ingest_backpressure.l0_file_count_threshold" || p.Settings[0].Value != "100" {
		t.Errorf("crdb-v20.1-tpcc-large: %+v", p)
	}
}
