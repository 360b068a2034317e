package report

import (
	"strings"
	"testing"
)

// TestHostsNameProfileAndWorkloadEfc: the per-host table says which load
// profile ran and shows workload's efc (over all active warehouses of the
// run) beside the host's own, "-" when a result does not say.
func TestHostsNameProfileAndWorkloadEfc(t *testing.T) {
	we := 19.4
	var b strings.Builder
	writeHosts(&b, []HostRun{
		{Host: "w1", TpmC: 12474.4, Efficiency: 97.0, WorkloadEfficiency: &we, Profile: "workload", Pass: true},
		{Host: "w2", TpmC: 12000, Efficiency: 93.3, Profile: "workload", Pass: true},
	})
	out := b.String()
	for _, want := range []string{"Load profile: workload.\n", "| w1 | 12474.40 | 97.00 % | 19.40 % | - | PASS |", "| w2 | 12000.00 | 93.30 % | - | - | PASS |"} {
		if !strings.Contains(out, want) {
			t.Errorf("hosts table lacks %q:\n%s", want, out)
		}
	}
}
