package profile

import (
	"strings"
	"testing"

	"github.com/benchrig/benchrig/tpcc"
)

// TestWorkloadConns pins workload's connection count: 2 per active
// warehouse of the whole run on every host, whatever its affinity; the
// pipelined profile keeps one per 40 of this host's terminals.
func TestWorkloadConns(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     tpcc.RunConfig
		conns   int
		profile tpcc.Profile
	}{
		{"workload 100k host of 5", tpcc.RunConfig{Warehouses: 100000, Partitions: 27, Affinity: []int{0, 5, 10, 15, 20, 25}, Wait: 1, URLs: make([]string, 15)}, 200010, tpcc.ProfileWorkload},
		{"pipelined 100k host of 5", tpcc.RunConfig{Warehouses: 100000, Partitions: 27, Affinity: []int{0, 5, 10, 15, 20, 25}, Wait: 1, URLs: make([]string, 15)}, 5565, tpcc.ProfilePipelined},
		{"workload active", tpcc.RunConfig{Warehouses: 10, ActiveWarehouses: 4, Wait: 1, URLs: make([]string, 3)}, 9, tpcc.ProfileWorkload},
		{"workload no-wait", tpcc.RunConfig{Warehouses: 10, Wait: 0, URLs: make([]string, 1)}, 100, tpcc.ProfileWorkload},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Profile, cfg.ChooseProfile = tc.profile, Choose
			n, err := tpcc.RunNeeds(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n.Conns != tc.conns {
				t.Errorf("conns = %d, want %d", n.Conns, tc.conns)
			}
		})
	}
}

// TestChooseDefault: without a name, CockroachDB runs workload's profile
// and PostgreSQL the pipelined one; a name is taken as given.
func TestChooseDefault(t *testing.T) {
	parts, err := tpcc.NewPartitions(10, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name tpcc.Profile
		d    tpcc.Dialect
		want tpcc.Profile
	}{
		{"", tpcc.Cockroach, tpcc.ProfileWorkload},
		{"", tpcc.Postgres, tpcc.ProfilePipelined},
		{tpcc.ProfileWorkload, tpcc.Postgres, tpcc.ProfileWorkload},
		{tpcc.ProfilePipelined, tpcc.Cockroach, tpcc.ProfilePipelined},
		{tpcc.ProfileFunctions, tpcc.Postgres, tpcc.ProfileFunctions},
	} {
		p, err := Choose(tc.name, tc.d, &tpcc.RunConfig{}, parts)
		if err != nil || p.Name() != tc.want {
			t.Errorf("Choose(%q, %s) = %v, %v; want %s", tc.name, tc.d, p, err, tc.want)
		}
	}
	if _, err := Choose("fast", tpcc.Postgres, &tpcc.RunConfig{}, parts); err == nil {
		t.Error("Choose(fast) accepted")
	}
	// The functions profile runs PL/pgSQL: refused on CockroachDB, with
	// the reason.
	if _, err := Choose(tpcc.ProfileFunctions, tpcc.Cockroach, &tpcc.RunConfig{}, parts); err == nil || !strings.Contains(err.Error(), "PL/pgSQL") {
		t.Errorf("Choose(functions, cockroach): %v, want refused with the reason", err)
	}
}
