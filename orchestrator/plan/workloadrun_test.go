package plan

import (
	"strings"
	"testing"
)

// TestHistogramFileFollowsRelease: the histogram file's default name is
// the one the plan's release's workload accepts (.histogram.json from
// v24.3, whose json exporter refuses another), a driver: workload plan
// naming another is refused before anything runs, and a round's file
// keeps the suffix.
func TestHistogramFileFollowsRelease(t *testing.T) {
	for _, tt := range []struct {
		version, driver, hist string
		want                  string // the normalized name, or a problem
	}{
		{"v25.4", "benchrig", "", "workload{n}.histogram.json"},
		{"v25.4", "workload", "", "workload{n}.histogram.json"},
		{"v24.2", "workload", "", "workload{n}.histogram.ndjson"},
		{"v20.1.17", "workload", "", "workload{n}.histogram.ndjson"},
		{"v25.4", "workload", "workload{n}.histogram.ndjson", "tpcc.histograms: CockroachDB v25.4's workload refuses a --histograms file whose name does not end in .json"},
		{"v25.4", "benchrig", "workload{n}.histogram.ndjson", "workload{n}.histogram.ndjson"},
	} {
		more := "  cockroach_version: " + tt.version + "\n  driver: " + tt.driver + "\n"
		if tt.hist != "" {
			more += "  histograms: " + tt.hist + "\n"
		}
		p, err := ParsePlan("/plans/t.yaml", []byte(planText(Cockroach, "  duration: 1m\n", "  duration: 1m\n"+more)))
		switch {
		case strings.HasPrefix(tt.want, "tpcc."):
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s %s %s: err %v, want %q", tt.version, tt.driver, tt.hist, err, tt.want)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tt.version, tt.driver, err)
		case p.TPCC.Histograms != tt.want:
			t.Errorf("%s %s: histograms %q, want %q", tt.version, tt.driver, p.TPCC.Histograms, tt.want)
		}
	}
	p, err := ParsePlan("/plans/t.yaml", []byte(planText(Cockroach, "  duration: 1m\n", "  duration: 1m\n  cockroach_version: v25.4\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got := HistogramFile(p, 1, Round{Label: "r2"}); got != "workload2.r2.histogram.json" {
		t.Errorf("round file %q", got)
	}
}

// TestWorkloadExtraFlags: driver: workload's measured run takes the
// release's own run flags; a flag the release does not have, one the
// plan sets itself, one naming a file, or a histogram format benchrig
// cannot merge is refused, at its line.
func TestWorkloadExtraFlags(t *testing.T) {
	for _, tt := range []struct {
		version, flags, want string
	}{
		{"v25.4", `[--tolerate-errors, --histograms-max-latency=30s, --histogram-export-format=json]`, ""},
		// connection.go's flags the documentation does not list.
		{"v25.4", `[--isolation-level=read_committed, --warmup-conns=100, --conn-vars=statement_timeout=0]`, ""},
		{"v20.1.17", `[--isolation-level=read_committed]`, "--isolation-level is not a flag of CockroachDB v20.1.17's"},
		{"v20.1.17", `[--tolerate-errors, --max-rate=100]`, ""},
		{"v20.1.17", `[--histogram-export-format=json]`, "--histogram-export-format is not a flag of CockroachDB v20.1.17's `workload run tpcc`"},
		{"v25.4", `[--bogus]`, "tpcc.extra_flags[0]: --bogus is not a flag of CockroachDB v25.4's"},
		{"v25.4", `[--histogram-export-format=openmetrics]`, "benchrig merges workload's json histograms"},
		{"v25.4", `[--tolerate-errors, --partitions=3]`, "tpcc.extra_flags[1]: --partitions is not for extra_flags: set from tpcc.partitions"},
		{"v25.4", `[--query-trace-file=/etc/x]`, "names an output file"},
		{"v25.4", `[tolerate-errors]`, "is not a flag"},
	} {
		more := "  cockroach_version: " + tt.version + "\n  driver: workload\n  extra_flags: " + tt.flags + "\n"
		_, err := ParsePlan("/plans/t.yaml", []byte(planText(Cockroach, "  duration: 1m\n", "  duration: 1m\n"+more)))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s %s: %v", tt.version, tt.flags, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err %v, want %q", tt.version, tt.flags, err, tt.want)
		}
	}
}

// TestGateways: tpcc.gateways names how many nodes the run connects to
// (the Local pages' one URL): 1 to the node count, cockroach only, never
// with partitions.
func TestGateways(t *testing.T) {
	for _, tt := range []struct {
		flavor, more, want string
	}{
		{Cockroach, "  gateways: 1\n", ""},
		{Cockroach, "  gateways: 3\n", ""},
		{Cockroach, "  gateways: 4\n", "tpcc.gateways: 4 of 3 nodes"},
		{Cockroach, "  gateways: -1\n", "tpcc.gateways: -1 of 3 nodes"},
		{Cockroach, "  gateways: 1\n  partitions: 3\n", "with partitions each workload host lists"},
		{Postgres, "  gateways: 1\n", "the cockroach flavor's"},
	} {
		_, err := ParsePlan("/plans/t.yaml", []byte(planText(tt.flavor, "tpcc:\n", "tpcc:\n"+tt.more)))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.more, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: err %v, want %q", tt.flavor, tt.more, err, tt.want)
		}
	}
}
