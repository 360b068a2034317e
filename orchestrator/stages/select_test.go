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

// TestRunURLsFollowRacks: up to v24.x workload (and the embedded driver
// told --cockroach-version v20.1) has URL j serve partition j % P, so
// every host gets all nodes in order (the recipe's addrs file) and node j
// must be in rack j % P; from v25.1 URL j serves affinity[j mod
// len(affinity)], so a host gets its partitions' racks' nodes, each rack
// in turn, every node of the rack once (docs/fidelity cites workload's
// URL mapping per release).
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
	P := p.TPCC.Partitions
	for _, h := range p.Workload {
		urls := f.runURLs(h)
		if len(urls) != 81 {
			t.Fatalf("%s: %d URLs, want the 81 of the addrs file", h.Name, len(urls))
		}
		for j, u := range urls {
			if rackOf[u] != j%P {
				t.Errorf("%s: URL %d (%s) is in rack %d, serves partition %d", h.Name, j, u, rackOf[u], j%P)
			}
		}
	}

	q := *p
	q.TPCC.CockroachVersion = "v25.1"
	f = cockroachFlavor{&q}
	for _, h := range q.Workload {
		urls := f.runURLs(h)
		if len(urls) != 3*len(h.Partitions) {
			t.Errorf("v25.1 %s: %d URLs for %d partitions of 3 nodes", h.Name, len(urls), len(h.Partitions))
		}
		seen := map[string]bool{}
		for j, u := range urls {
			if want := h.Partitions[j%len(h.Partitions)]; rackOf[u] != want {
				t.Errorf("v25.1 %s: URL %d (%s) is in rack %d, serves partition %d", h.Name, j, u, rackOf[u], want)
			}
			seen[u] = true
		}
		if len(seen) != len(urls) {
			t.Errorf("v25.1 %s: a node is listed twice", h.Name)
		}
	}
}
