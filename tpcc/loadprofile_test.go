package tpcc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
)

func TestParseProfile(t *testing.T) {
	for _, s := range []string{"", "workload", "pipelined", "functions"} {
		if p, err := ParseProfile(s); err != nil || string(p) != s {
			t.Errorf("ParseProfile(%q) = %q, %v", s, p, err)
		}
	}
	if _, err := ParseProfile("fast"); err == nil {
		t.Error("ParseProfile(fast) accepted")
	}
	if DefaultProfile(Cockroach) != ProfileWorkload || DefaultProfile(Postgres) != ProfilePipelined {
		t.Error("default profiles: want workload on CockroachDB, pipelined on PostgreSQL")
	}
}

// TestResultNamesProfile: the result JSON and the report name the profile
// that ran, its connections and workload's per-host efc (over all active
// warehouses of the run) beside benchrig's (over this host's); the
// document matches the schema.
func TestResultNamesProfile(t *testing.T) {
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			res := fixedResult(t)
			res.Profile, res.Connections, res.AllActive = p, 2010, 1000
			res.WorkloadEfficiency = 100 * res.TpmC / (12.86 * 1000)
			// This host drives 200 of the run's 1000 warehouses.
			res.Result.Warehouses, res.Efficiency = 200, 100*res.TpmC/(12.86*200)
			cfg := RunConfig{Warehouses: 1000, Partitions: 5, Affinity: []int{1}, Ramp: time.Minute, Duration: 30 * time.Minute, Wait: 1}
			r := NewResult(cfg, res, nil)
			if r.Profile != string(p) || r.Connections != 2010 || r.WorkloadEfficiency == nil || *r.WorkloadEfficiency != res.WorkloadEfficiency {
				t.Errorf("profile %q, connections %d, workload efficiency %v", r.Profile, r.Connections, r.WorkloadEfficiency)
			}
			doc, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			checkSchema(t, doc)
			rep := formatFinal(res)
			if !strings.Contains(rep, "Profile "+string(p)+", 2010 connections") || !strings.Contains(rep, "over all 1000 active warehouses of the run (workload's per-host efc, the line above)") {
				t.Errorf("report does not name the profile and workload's efc:\n%s", rep)
			}
			// The workload-format line carries workload's efc, not
			// benchrig's per-host one (which ParseFinalLine would read as
			// workload's).
			fl, err := histogram.ParseFinalLine([]byte(rep))
			if err != nil || math.Abs(fl.Efficiency-res.WorkloadEfficiency) > 0.05 {
				t.Errorf("tpmC line efc %v (%v), want workload's %.1f, not benchrig's %.1f", fl.Efficiency, err, res.WorkloadEfficiency, res.Efficiency)
			}
		})
	}
}
