package stages

import (
	"os"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// TestLocalPorts: the range as /proc prints it, less the reserved ports
// inside it; anything else is refused.
func TestLocalPorts(t *testing.T) {
	for _, tc := range []struct {
		rng, reserved string
		n             int
		err           bool
	}{
		{"32768\t60999", "", 28232, false}, // Linux's default
		{"32768 60999", "\n", 28232, false},
		{"1024 65535", "", 64512, false},
		{"40000 40049", "40000,40010-40019,50000-50010", 39, false},
		{"40000 40049", "39990-40004", 45, false},
		{"40000 40049", "1-65535", 0, false},
		{"5 5", "", 1, false},
		{"", "", 0, true},
		{"32768", "", 0, true},
		{"60999 32768", "", 0, true},
		{"0x10 20", "", 0, true},
		{"1 70000", "", 0, true},
		{"1 2 3", "", 0, true},
		{"100 200", "150-140", 0, true},
		{"100 200", "a", 0, true},
		{"100 200", "150,", 0, true},
		{"100 200", "+150", 0, true},
	} {
		n, _, _, err := LocalPorts(tc.rng, tc.reserved)
		if (err != nil) != tc.err || n != tc.n {
			t.Errorf("LocalPorts(%q, %q) = %d, %v; want %d, error %v", tc.rng, tc.reserved, n, err, tc.n, tc.err)
		}
	}
}

// FuzzLocalPorts: whatever a host answers, the count is within the range
// and never negative, and nothing panics.
func FuzzLocalPorts(f *testing.F) {
	f.Add("32768\t60999", "")
	f.Add("40000 40049", "40000,40010-40019")
	f.Add("1 65535", "1-65535,7")
	f.Fuzz(func(t *testing.T, rng, reserved string) {
		n, lo, hi, err := LocalPorts(rng, reserved)
		if err != nil {
			return
		}
		if n < 0 || n > hi-lo+1 || lo < 0 || hi > 65535 {
			t.Fatalf("LocalPorts(%q, %q) = %d in %d-%d", rng, reserved, n, lo, hi)
		}
	})
}

// TestJudgeDest: a step asking one destination for more connections than
// the host's range has ports fails, naming the step, the destination, the
// range and the fixes; within the range it passes; an unknown range is
// not judged.
func TestJudgeDest(t *testing.T) {
	d := DestConns{Conns: 200000, Dest: "10.0.1.11:26257", Step: "partition"}
	cell, fail := judgeDest(d, map[string]string{"local_port_range": "32768 60999"})
	for _, want := range []string{"the partition step opens 200000 connections from this host to 10.0.1.11:26257", "net.ipv4.ip_local_port_range 32768-60999 gives 28232 local ports", "cannot assign requested address", "widen the range"} {
		if !strings.Contains(fail, want) {
			t.Errorf("failure lacks %q: %s", want, fail)
		}
	}
	if cell != "200000 to one ip:port of 28232 local ports (too many)" {
		t.Errorf("cell %q", cell)
	}
	_, fail = judgeDest(DestConns{Conns: 28232, Dest: "a:1", Step: "run"}, map[string]string{"local_port_range": "32768 60999"})
	if fail != "" {
		t.Errorf("28232 connections in a 28232-port range failed: %s", fail)
	}
	_, fail = judgeDest(DestConns{Conns: 28232, Dest: "a:1", Step: "run"}, map[string]string{"local_port_range": "32768 60999", "local_reserved_ports": "40000"})
	if !strings.Contains(fail, "less 1 reserved") {
		t.Errorf("a reserved port in the range: %q", fail)
	}
	if cell, fail := judgeDest(d, map[string]string{}); fail != "" || !strings.Contains(cell, "unknown") {
		t.Errorf("no range: %q, %q", cell, fail)
	}
}

// TestPartitionStepPerDestination100k: the 100k plan's partitioning run,
// with either driver, asks workload1 for at most 2,470 connections per
// node, within Linux's default range (28,232 ports); the recipe's single
// URL would ask one node for all 200,000.
func TestPartitionStepPerDestination100k(t *testing.T) {
	withLicense(t)
	text, err := os.ReadFile("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, driver := range []string{"benchrig", "workload"} {
		t.Run(driver, func(t *testing.T) {
			src := string(text)
			if driver == "workload" {
				src = strings.Replace(src, "tpcc:\n", "tpcc:\n  driver: workload\n", 1)
			}
			p, err := plan.ParsePlan("tpcc-100k.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			c := &compiler{p: p, f: cockroachFlavor{p}}
			byHost := tpccWorkload{c}.runNeeds()
			var part []hostConns
			for _, hc := range byHost["workload1"] {
				if hc.step == "partition" {
					part = append(part, hc)
				}
			}
			if len(part) != 1 {
				t.Fatalf("workload1 has %d partition steps among its needs, want 1", len(part))
			}
			if part[0].need.Conns < 200000 || len(part[0].urls) != 81 {
				t.Errorf("the partitioning run opens %d connections over %d URLs, want workload's 200,000 over the 81 nodes", part[0].need.Conns, len(part[0].urls))
			}
			d := destConnsOf(map[string][]hostConns{"workload1": part})["workload1"]
			if d.Conns != 2470 {
				t.Errorf("partition step: %d connections to %s, want 2470 (200,000 over 81 nodes, rounded up)", d.Conns, d.Dest)
			}
			if _, fail := judgeDest(d, map[string]string{"local_port_range": "32768\t60999"}); fail != "" {
				t.Errorf("refused on Linux's default range: %s", fail)
			}
			// The recipe's one URL, as it was compiled before.
			one := part[0]
			one.urls, one.per = one.urls[:1], []int{one.need.Conns}
			d = destConnsOf(map[string][]hostConns{"workload1": {one}})["workload1"]
			if _, fail := judgeDest(d, map[string]string{"local_port_range": "32768\t60999"}); !strings.Contains(fail, "the partition step opens") {
				t.Errorf("the recipe's single URL passes: %+v", d)
			}
		})
	}
}
