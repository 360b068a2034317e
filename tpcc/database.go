package tpcc

import (
	"fmt"

	"github.com/benchrig/benchrig/internal/pgdb"
)

// CreateDatabase is pgdb.CreateDatabase: tpcc init creates its --db.
var CreateDatabase = pgdb.CreateDatabase

// InitSummary is the line `tpcc init` prints: what was created, from the
// stored meta row (so a re-run reports what the database holds).
func InitSummary(d Dialect, version string, m Meta) string {
	layout := "workload's layout"
	if version != "" {
		layout = "workload generator " + version + "'s layout"
	}
	return fmt.Sprintf("tpcc init: %s schema in %s for %d warehouses (w_id 0..%d, %d partitions), seed %d, C-Load %v",
		d, layout, m.Warehouses, m.Warehouses-1, m.Partitions, m.Seed, m.Load)
}

// String is the line `tpcc load` prints at the end.
func (st LoadStats) String() string {
	items := "already loaded"
	if st.Items {
		items = "loaded"
	}
	return fmt.Sprintf("tpcc load: %d warehouses loaded, %d already loaded, item table %s; %d rows in %v",
		st.Loaded, st.Skipped, items, st.Rows, st.Elapsed.Round(1e6))
}
