package plan

import (
	"strings"
	"testing"
)

// TestRelease: a setting the plan's release retired is refused, at its
// line and naming the release that retired it; the same setting is
// accepted by a release before that; from v24.3 a multi-node cluster
// needs a licence. Each "ok" row is the same plan as a failing one but
// for the release, so the check keys on the release and not the name.
func TestRelease(t *testing.T) {
	version := func(v, more string) []string {
		return []string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: " + v + "\n" + more}
	}
	setting := func(v, name string) []string {
		return append(version(v, ""), "", "settings:\n  cluster:\n    "+name+": 1\n")
	}
	license := []string{"", "license: {organization: Example, key: {env: BENCHRIG_TEST_RELEASE_LICENSE}}\n"}
	t.Setenv("BENCHRIG_TEST_RELEASE_LICENSE", "crl-0-dGVzdA")
	for _, tt := range []struct {
		name  string
		edits []string
		want  string // "" for a valid plan
	}{
		{"retired in 20.2, plan 25.4", append(setting("v25.4", "rocksdb.ingest_backpressure.pending_compaction_threshold"), license...),
			"t.yaml:18:5: settings.cluster.rocksdb.ingest_backpressure.pending_compaction_threshold: retired in CockroachDB v20.2"},
		{"retired in 20.2, plan 20.1", setting("v20.1", "rocksdb.ingest_backpressure.pending_compaction_threshold"), ""},
		{"removed in 23.2, plan 25.4", append(setting("v25.4.1", "kv.snapshot_recovery.max_rate"), license...), "retired in CockroachDB v23.2"},
		{"removed in 23.2, plan 23.1", setting("v23.1", "kv.snapshot_recovery.max_rate"), ""},
		{"still there", append(setting("v25.4", "kv.range_merge.queue_enabled"), license...), ""},
		{"preset's retired setting", append(append(version("v25.4", ""), "", "settings: {preset: crdb-v20.1-tpcc-large}\n"), license...),
			"settings.preset: crdb-v20.1-tpcc-large sets rocksdb.ingest_backpressure.pending_compaction_threshold, retired in CockroachDB v20.2"},
		{"no licence, 25.4", version("v25.4", ""), "license: CockroachDB v25.4 throttles a cluster without a licence"},
		{"no licence, 24.2", version("v24.2", ""), ""},
		{"licence, 24.3", append(version("v24.3", ""), license...), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePlan("/plans/t.yaml", []byte(planText(Cockroach, tt.edits...)))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("want a valid plan, got %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("want a problem %q, got %v", tt.want, err)
			}
		})
	}
}
