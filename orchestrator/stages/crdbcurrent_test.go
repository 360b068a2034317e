package stages_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestLargeV254DryRun: the dry-run of the v25.4 Large plan shows what
// the page runs: 140,000 warehouses, the release's IMPORT INTO,
// teardown's SIGTERM to every node (never cockroach quit), the v25.1+ affinity flags
// (--partition-affinity with --workers and --conns per host), the page's
// settings and zone change, and the licence hidden.
func TestLargeV254DryRun(t *testing.T) {
	const secret = "crl-0-VEhFTElDRU5DRUtFWQ"
	t.Setenv("COCKROACH_LICENSE", secret)
	out, rec := dryRun(t, "../../plans/tpcc-v25.4-large.yaml")
	text := string(out)
	for _, want := range []string{
		"./cockroach workload fixtures import tpcc --partitions 81 --partition-strategy leases --replicate-static-columns --warehouses 140000 ",
		`IMPORT INTO "warehouse" CSV DATA (`,
		"-- CockroachDB v25.4.0, tpcc generator 2.2.0, 140000 warehouses",
		"CREATE UNIQUE INDEX item_idx_80 ON item",
		"sh -c '<crdb-signal>' sh benchrig/cockroach.pid",
		"--partition-affinity 17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32 --ramp 4m --duration 30m --workers 276550 --conns 55310 --histograms workload2.histogram.json",
		" 500000 addrs workload2.workload.out ./cockroach workload run tpcc",
		`(metrics->>'\''queue.replicate.pending'\'')::INT8 + (metrics->>'\''queue.lease.pending'\'')::INT8), 0) FROM crdb_internal.kv_store_status`,
		"--partition-affinity 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --ramp 30m --duration 1ms --workers 293820",
		"--locality=rack=80 '--log=file-defaults: {dir: '\\''benchrig/logs'\\''}' --background",
		"'SET CLUSTER SETTING kv.dist_sender.concurrency_limit = 2016;'",
		"'ALTER RANGE default CONFIGURE ZONE USING gc.ttlseconds = 600;'",
		"SET CLUSTER SETTING enterprise.license = ****;",
		"-e 'SET allow_unsafe_internals = on' -e 'SELECT CASE WHEN",
		"tpcc merge --warehouses 140000",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the dry-run lacks %q", want)
		}
	}
	if regexp.MustCompile(`\bquit\b`).MatchString(text) {
		t.Error("the dry-run stops a node with cockroach quit")
	}
	if strings.Contains(text, secret) {
		t.Error("the dry-run prints the licence key")
	}
	for _, e := range rec.Entries() {
		if strings.Contains(e.Text, secret) {
			t.Errorf("a recorded call carries the licence key: %s", e.Text)
		}
	}
	// workload3 drives racks 33..48: its addrs file lists those nodes, in
	// affinity order (URL j serves affinity[j] from v25.1).
	if !strings.Contains(text, "sh benchrig/addrs 'postgres://root@10.0.1.44:26257?sslmode=disable' 'postgres://root@10.0.1.45:26257?sslmode=disable'") {
		t.Error("workload3's addrs file does not start with racks 33 and 34")
	}
}

// TestV254PlansPassJSONHistograms: every v25.4 plan's measured run passes
// a --histograms file ending in .json (v25.4's workload refuses another
// before it starts: PR #129221), collect gets it and merge reads it; no
// step names an .ndjson file.
func TestV254PlansPassJSONHistograms(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	for _, name := range []string{"large", "medium", "small", "local"} {
		out, _ := dryRun(t, "../../plans/tpcc-v25.4-"+name+".yaml")
		text := string(out)
		if !strings.Contains(text, "--histograms workload1.histogram.json") || !strings.Contains(text, "workload1.histogram.json -> results/") ||
			!regexp.MustCompile(`tpcc merge .* results/[a-z0-9]+/workload1\.histogram\.json`).MatchString(text) {
			t.Errorf("%s: the run, collect or merge does not use workload1.histogram.json", name)
		}
		if strings.Contains(text, ".ndjson") {
			t.Errorf("%s: the dry-run names an .ndjson file", name)
		}
	}
}
