package plan

import (
	"strings"
	"testing"
)

// TestProfileDefaults: the embedded driver's load profile defaults by
// flavor (workload's on cockroach, pipelined on postgres), an explicit
// one is kept, and driver: workload has none.
func TestProfileDefaults(t *testing.T) {
	for _, tt := range []struct {
		flavor string
		edits  []string
		want   string
	}{
		{Cockroach, nil, "workload"},
		{Postgres, nil, "pipelined"},
		{Cockroach, []string{"  duration: 1m\n", "  duration: 1m\n  profile: pipelined\n"}, "pipelined"},
		{Postgres, []string{"  duration: 1m\n", "  duration: 1m\n  profile: workload\n"}, "workload"},
		{Postgres, []string{"  duration: 1m\n", "  duration: 1m\n  profile: functions\n"}, "functions"},
	} {
		n := Normalize(decoded(t, planText(tt.flavor, tt.edits...)))
		if err := Validate(n); err != nil {
			t.Fatalf("%s %v: %v", tt.flavor, tt.edits, err)
		}
		if n.TPCC.Profile != tt.want {
			t.Errorf("%s %v: profile %q, want %q", tt.flavor, tt.edits, n.TPCC.Profile, tt.want)
		}
	}
}

// TestProfileValidate: an unknown profile, the functions profile on
// cockroach, and a profile with driver: workload are reported at their
// line.
func TestProfileValidate(t *testing.T) {
	for _, tt := range []struct {
		name, flavor, lines, want string
	}{
		{"unknown", Cockroach, "  profile: fast\n", `tpcc.profile: unknown load profile "fast"`},
		{"functions on cockroach", Cockroach, "  profile: functions\n", "tpcc.profile: functions calls PL/pgSQL functions, which CockroachDB does not run"},
		{"with driver workload", Cockroach, "  profile: workload\n  driver: workload\n", "tpcc.profile: the embedded driver's load profile"},
		{"fillfactor on cockroach", Cockroach, "  fillfactor: 90\n", "tpcc.fillfactor: a PostgreSQL table storage parameter"},
		{"fillfactor too low", Postgres, "  fillfactor: 5\n", "tpcc.fillfactor 5: must be 10..100"},
		{"fillfactor too high", Postgres, "  fillfactor: 101\n", "tpcc.fillfactor 101: must be 10..100"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePlan("/plans/t.yaml", []byte(planText(tt.flavor, "  duration: 1m\n", "  duration: 1m\n"+tt.lines)))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "/plans/t.yaml:") {
				t.Errorf("got %v, want %q at its line", err, tt.want)
			}
		})
	}
}
