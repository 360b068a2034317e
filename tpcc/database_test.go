package tpcc

import (
	"testing"
	"time"
)

func TestInitSummaryAndLoadStats(t *testing.T) {
	m := Meta{Seed: 7, Warehouses: 10, Partitions: 2, Load: Constants{CLast: 1, CID: 2, OLIID: 3}}
	for _, tc := range []struct{ got, want string }{
		{InitSummary(Postgres, "", m), "tpcc init: " + Postgres.String() + " schema in workload's layout for 10 warehouses (w_id 0..9, 2 partitions), seed 7, C-Load C_LAST=1 C_ID=2 OL_I_ID=3"},
		{InitSummary(Cockroach, "2.2.0", m), "tpcc init: " + Cockroach.String() + " schema in workload generator 2.2.0's layout for 10 warehouses (w_id 0..9, 2 partitions), seed 7, C-Load C_LAST=1 C_ID=2 OL_I_ID=3"},
		{LoadStats{Loaded: 3, Skipped: 1, Items: true, Rows: 42, Elapsed: 1500 * time.Microsecond}.String(), "tpcc load: 3 warehouses loaded, 1 already loaded, item table loaded; 42 rows in 2ms"},
		{LoadStats{}.String(), "tpcc load: 0 warehouses loaded, 0 already loaded, item table already loaded; 0 rows in 0s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}
