package crud

// Combine is the result of several hosts that ran the benchmark at the
// same time on disjoint keys: counts add up, and each phase lasted as
// long as its slowest host, so the combined rates are what the cluster
// served. Latency percentiles cannot be combined from summaries; the
// worst host's are kept.
func Combine(results ...Result) Result {
	var c Result
	for _, r := range results {
		c.Goroutines += r.Goroutines
		c.Records, c.SelectRepeat, c.ManyRepeat = r.Records, r.SelectRepeat, r.ManyRepeat
		c.Inserts += r.Inserts
		c.Updates += r.Updates
		c.Selects += r.Selects
		c.ManyQueries += r.ManyQueries
		c.ManyRows += r.ManyRows
		c.InsertDur = max(c.InsertDur, r.InsertDur)
		c.UpdateDur = max(c.UpdateDur, r.UpdateDur)
		c.SelectDur = max(c.SelectDur, r.SelectDur)
		c.ManyDur = max(c.ManyDur, r.ManyDur)
		c.InsertLat = worse(c.InsertLat, r.InsertLat)
		c.UpdateLat = worse(c.UpdateLat, r.UpdateLat)
		c.SelectLat = worse(c.SelectLat, r.SelectLat)
		c.ManyLat = worse(c.ManyLat, r.ManyLat)
	}
	return c
}

func worse(a, b Latency) Latency {
	if b.P99 > a.P99 {
		return b
	}
	return a
}
