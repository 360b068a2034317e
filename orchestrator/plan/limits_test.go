package plan

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestPlanLimits: plans built to exhaust time or memory are refused at a
// file:line:col without being expanded. What is checked is the memory the
// refusal allocated (deterministic), not its wall time (which a loaded CI
// machine stretches): expanding any of these plans would take gigabytes.
func TestPlanLimits(t *testing.T) {
	// An alias bomb through the one place types nest (hosts with
	// partitions): 20,000 aliases of a host whose partitions alias a list
	// of 20,000 numbers stand for 400 million values in ~200 kB.
	var nums []string
	for i := 0; i < 20000; i++ {
		nums = append(nums, "1")
	}
	bomb := "version: 1\nflavor: postgres\nx-p: &p [" + strings.Join(nums, ",") + "]\n" +
		"workload:\n  - &h {name: w, partitions: *p}\n" + strings.Repeat("  - *h\n", 20000)
	for _, tt := range []struct {
		name, plan, want string
	}{
		{"alias bomb", bomb, "aliases expand the plan by more than 100000 values"},
		{"oversized", "version: 1\ndescription: \"" + strings.Repeat("x", MaxPlanSize) + "\"\n", "test.yaml:1:1: the plan is larger than"},
		{"second document", "version: 1\n---\nname: x\n", "test.yaml:3:1: a second YAML document"},
		{"invalid UTF-8", "version: 1\nname: \"a\xffb\"\n", "test.yaml:2:9: YAML syntax"},
		{"escaped NUL", "version: 1\nname: \"a\\0b\"\n", "test.yaml:2:7: name: control character U+0000"},
		{"fraction", "version: 1\ntpcc: {warehouses: 2.5}\n", `test.yaml:2:20: tpcc.warehouses: want a whole number, got "2.5"`},
		{"partitions -2", "version: 1\nflavor: postgres\nworkload: [{name: w}]\ntpcc: {warehouses: 3, partitions: -2}\n", "tpcc.partitions: must not be negative"},
		{"huge partitions", "version: 1\nflavor: postgres\nworkload: [{name: w}]\ntpcc: {warehouses: 3000000000, partitions: 2147483648}\n", "tpcc.partitions: 2147483648 partitions; at most"},
		{"rack maxint", "version: 1\nflavor: postgres\nnodes: [{name: n, rack: \"9223372036854775807\"}]\n", "is not a rack number"},
		{"racks maxint", "version: 1\nflavor: postgres\nnodes: [{name: \"n[1-3]\", racks: 9223372036854775807}]\n", "leaves racks empty"},
		{"search maxint", "version: 1\nflavor: postgres\ntpcc: {warehouses: 10, search: {min: 1, max: 9223372036854775806}}\n", "tpcc.search: want 1 <= min <= max"},
		{"negative workers", "version: 1\nname: x\nflavor: postgres\ntpcc: {workers: -1}\n", "tpcc.workers: -1 is outside"},
		{"nan", "version: 1\npreflight: {min_free_gb: .nan}\n", "want a finite number"},
		{"rounds", "version: 1\nname: x\nflavor: postgres\nworkload: [{name: \"w[0-9999]\"}]\ntpcc: {warehouses: 1, repeat: 100}\n", "make 1000000 run steps; at most 100000"},
		{"pattern product", "version: 1\nflavor: postgres\nnodes: [{name: \"n[0-99999]m[0-99999]\"}]\n", "expands to more than 10000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := ParsePlan("test.yaml", []byte(tt.plan))
			runtime.ReadMemStats(&after)
			if d := after.TotalAlloc - before.TotalAlloc; d > maxRefusalAlloc {
				t.Errorf("refusing it allocated %d MiB", d>>20)
			}
			var pe *PlanError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want a problem %q, got %v", tt.want, trim(err))
			}
		})
	}
}

// maxRefusalAlloc bounds what refusing a hostile plan may allocate: the
// alias bomb stands for 400 million values (gigabytes); refusing it takes
// a few tens of MiB, mostly yaml.v3's nodes of the 200 kB file.
const maxRefusalAlloc = 64 << 20

func trim(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return s
}
