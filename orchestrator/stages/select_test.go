package stages

import (
	"github.com/benchrig/benchrig/orchestrator/plan"

	"strings"
	"testing"
)

func TestSelectStages(t *testing.T) {
	planned := []string{"install", "start", "init", "import", "run", "collect", "merge"}
	for _, tt := range []struct {
		name string
		opt  Options
		want string
		err  string
	}{
		{name: "all", want: "install start init import run collect merge"},
		{name: "only", opt: Options{Only: []string{"merge", "run"}}, want: "run merge"},
		{name: "from", opt: Options{From: "run"}, want: "run collect merge"},
		{name: "until", opt: Options{Until: "init"}, want: "install start init"},
		{name: "from-until", opt: Options{From: "start", Until: "import"}, want: "start init import"},
		{name: "unknown", opt: Options{From: "strat"}, err: "unknown stage"},
		{name: "not planned", opt: Options{Only: []string{"swap"}}, err: "no such stage"},
		{name: "until before from", opt: Options{From: "run", Until: "init"}, err: "comes before"},
	} {
		got, err := selectStages(planned, tt.opt)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: want error %q, got %v", tt.name, tt.err, err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("%s: got %v %v, want %s", tt.name, got, err, tt.want)
		}
	}
}

func TestSQLValue(t *testing.T) {
	for in, want := range map[string]string{
		"100":         "100",
		"0.5":         "0.5",
		"true":        "true",
		"5 GiB":       "'5 GiB'",
		"500us":       "'500us'",
		"1e9":         "'1e9'",
		"NaN":         "'NaN'",
		"x'; DROP --": "'x''; DROP --'",
		"0x10":        "'0x10'",
		"":            "''",
	} {
		if got := sqlValue(in); got != want {
			t.Errorf("sqlValue(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestRunURLsFollowRacks: the driver has URL j serve partition
// affinity[j mod len(affinity)]; each such URL must be a node of that
// partition's rack, and every node of the rack must be used.
func TestRunURLsFollowRacks(t *testing.T) {
	withLicense(t)
	p, err := plan.LoadPlan("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rackOf := map[string]int{}
	f := cockroachFlavor{p}
	for i, u := range f.urls() {
		rackOf[u] = p.Nodes[i].Rack
	}
	for _, h := range p.Workload {
		urls := f.runURLs(h)
		if len(urls) != 3*len(h.Partitions) {
			t.Errorf("%s: %d URLs for %d partitions of 3 nodes", h.Name, len(urls), len(h.Partitions))
		}
		seen := map[string]bool{}
		for j, u := range urls {
			if want := h.Partitions[j%len(h.Partitions)]; rackOf[u] != want {
				t.Errorf("%s: URL %d (%s) is in rack %d, serves partition %d", h.Name, j, u, rackOf[u], want)
			}
			seen[u] = true
		}
		if len(seen) != len(urls) {
			t.Errorf("%s: a node is listed twice", h.Name)
		}
	}
}
