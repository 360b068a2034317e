package plan

import (
	"strconv"
	"strings"
	"testing"
)

// TestFidelityDefaults: the release comes from the database binary's name;
// cockroach imports by IMPORT from the first host, postgres by copy from
// every host; the driver is benchrig's.
func TestFidelityDefaults(t *testing.T) {
	for _, tt := range []struct {
		flavor string
		edits  []string
		want   string
	}{
		{Cockroach, nil, "version= import/first/1 benchrig replication"},
		{Cockroach, []string{"https://example.invalid/c", "https://binaries.cockroachdb.com/cockroach-v20.1.17.linux-amd64.tgz, member: cockroach-v20.1.17.linux-amd64/cockroach"},
			"version=v20.1.17 import/first/1 benchrig replication"},
		{Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  cockroach_version: v23.2\n  import: {method: copy}\n"}, "version=v23.2 copy/first/1 benchrig replication"},
		{Postgres, nil, "version= copy/all/1 benchrig replication"},
	} {
		n := Normalize(decoded(t, planText(tt.flavor, tt.edits...)))
		if err := Validate(n); err != nil {
			t.Fatalf("%v: %v", tt.edits, err)
		}
		tp := n.TPCC
		got := "version=" + tp.CockroachVersion + " " + tp.Import.Method + "/" + tp.Import.Hosts + "/" + strconv.Itoa(tp.Import.FilesPerNode) + " " + tp.Driver + " " + tp.PartitionStrategy
		if got != tt.want {
			t.Errorf("%s %v: %s, want %s", tt.flavor, tt.edits, got, tt.want)
		}
	}
}

// TestFidelityValidate: each field's problems, at its line.
func TestFidelityValidate(t *testing.T) {
	tpcc := func(lines string) []string { return []string{"  duration: 1m\n", "  duration: 1m\n" + lines} }
	for _, tt := range []struct {
		name, flavor string
		edits        []string
		want         string
	}{
		{"bad version", Cockroach, tpcc("  cockroach_version: twenty\n"), "tpcc.cockroach_version: CockroachDB version \"twenty\""},
		{"bad patch level", Cockroach, tpcc("  cockroach_version: v20.1.x\n"), "tpcc.cockroach_version: CockroachDB version \"v20.1.x\": patch level"},
		{"version on postgres", Postgres, tpcc("  cockroach_version: v20.1\n"), "tpcc.cockroach_version: only for the cockroach flavor"},
		{"import on postgres", Postgres, tpcc("  import: {method: import}\n"), "tpcc.import.method: import issues CockroachDB IMPORT"},
		{"method", Cockroach, tpcc("  import: {method: restore}\n"), "tpcc.import.method: want import, init or copy"},
		{"hosts", Postgres, tpcc("  import: {hosts: some}\n"), "tpcc.import.hosts: want all or first"},
		{"files per node", Cockroach, tpcc("  import: {files_per_node: 5000}\n"), "tpcc.import.files_per_node: 5000 is outside 1..1000"},
		{"driver", Cockroach, tpcc("  driver: k6\n"), "tpcc.driver: want benchrig or workload"},
		{"workload on postgres", Postgres, tpcc("  driver: workload\n"), "workload runs against CockroachDB only"},
		{"workload binary without digest", Cockroach, []string{"binaries:\n", "binaries:\n  workload: {url: https://example.invalid/workload}\n"}, "binaries.workload: a url needs sha256"},
		{"strategy", Cockroach, tpcc("  partition_strategy: random\n"), "tpcc.partition_strategy: unknown partition strategy"},
		{"zones count", Cockroach, tpcc("  zones: [a, b]\n"), "tpcc.zones: 2 zones for 0 partitions"},
		{"zone value", Cockroach, tpcc("  zones: [\"a'b\"]\n  partitions: 1\n"), "is not a locality value"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePlan("/plans/t.yaml", []byte(planText(tt.flavor, tt.edits...)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("want a problem %q, got %v", tt.want, err)
			}
		})
	}
}
