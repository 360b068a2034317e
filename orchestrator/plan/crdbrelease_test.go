package plan

import (
	"strings"
	"testing"
)

// TestRelease: a setting the plan's release retired is refused, at its
// line and naming the release that retired it; the same setting is
// accepted by a release before that; before v24.3 partitioning needs a
// licence, from v24.3 none is needed (LicenseNote says what happens
// without one). Each "ok" row is the same plan as a failing one but
// for the release, so the check keys on the release and not the name.
func TestRelease(t *testing.T) {
	version := func(v, more string) []string {
		return []string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: " + v + "\n" + more}
	}
	setting := func(v, name string) []string {
		return append(version(v, ""), "", "settings:\n  cluster:\n    "+name+": 1\n")
	}
	racks := []string{"  - name: n[1-3]\n", "  - name: n[1-3]\n    racks: 3\n"}
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
		{"no licence, 25.4", version("v25.4", ""), ""},
		{"no licence, 24.2", version("v24.2", ""), ""},
		{"licence, 24.3", append(version("v24.3", ""), license...), ""},
		{"partitioned, no licence, 20.1", version("v20.1", "  partitions: 3\n"), "license: CockroachDB v20.1's partitioning is an enterprise feature"},
		{"partitioned, licence, 20.1", append(append(version("v20.1", "  partitions: 3\n"), racks...), license...), ""},
		{"partitioned, no licence, 25.4", append(version("v25.4", "  partitions: 3\n"), racks...), ""},
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

// TestLicenseNote: a v24.3+ multi-node plan without a licence is valid
// and gets the note on throttling; with a licence, before v24.3 or on
// one node it gets none.
func TestLicenseNote(t *testing.T) {
	t.Setenv("BENCHRIG_TEST_RELEASE_LICENSE", "crl-0-dGVzdA")
	for _, tt := range []struct {
		edits []string
		want  string
	}{
		{[]string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: v25.4\n"}, "no licence: CockroachDB v25.4 runs an unlicensed 3-node cluster for 7 days from init, then throttles it to 5 concurrent open transactions; give license: for a cluster kept longer"},
		{[]string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: v25.4\n", "", "license: {organization: Example, key: {env: BENCHRIG_TEST_RELEASE_LICENSE}}\n"}, ""},
		{[]string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: v24.2\n"}, ""},
	} {
		p, err := ParsePlan("/plans/t.yaml", []byte(planText(Cockroach, tt.edits...)))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.LicenseNote(); got != tt.want {
			t.Errorf("note %q, want %q", got, tt.want)
		}
	}
}
