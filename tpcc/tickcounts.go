package tpcc

import "github.com/benchrig/benchrig/tpcc/result"

// loadTickCounts is what a tick reads of the run's counters besides the
// histograms (result.TickBuilder), by transaction name.
func loadTickCounts(c *counters) result.TickCounts {
	tc := result.TickCounts{Errors: make(map[string]int64, numTxnTypes), Retries: make(map[string]int64, numTxnTypes)}
	for t := range numTxnTypes {
		tc.Errors[t.String()] = c.errors[t].Load()
		tc.Retries[t.String()] = c.retries[t].Load()
	}
	return tc
}
