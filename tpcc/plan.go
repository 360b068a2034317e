package tpcc

import (
	"errors"
	"fmt"
)

// plan is the host's share of the run: its terminals' homes and the
// connection pool serving each.
type plan struct {
	homes []Home
	pool  []uint16
}

// planTerminals places 10 terminals on every active warehouse of the
// partitions in affinity (clause 4.2.2 / CockroachDB's 10 workers per
// warehouse), with terminal k of a warehouse using district k for
// Stock-Level (clause 2.8.1.1).
//
// URLs: with one affinity value (or none) every URL serves this host's
// warehouses, spread by w_id. With several, URL j serves partition
// affinity[j % len(affinity)] — list URLs in the order of the affinity
// list, as older CockroachDB workloads assumed — and a partition without
// a URL of its own uses all of them.
//
// fidelity:v20.1/D20 fidelity:v20.1/D22
func planTerminals(p Partitions, affinity []int, nURLs int, urlPerAffinity bool) (plan, error) {
	if len(affinity) == 0 {
		for i := range p.Count {
			affinity = append(affinity, i)
		}
	}
	urlsOf := urlPartitions(urlPerAffinity, p.Count, affinity, nURLs)
	var pl plan
	for _, part := range affinity {
		if part < 0 || part >= p.Count {
			return plan{}, fmt.Errorf("partition affinity %d outside 0..%d", part, p.Count-1)
		}
		lo, hi := p.ActiveRange(part)
		for w := lo; w <= hi; w++ {
			urls := urlsOf[part]
			var u uint16
			if len(urls) > 0 {
				u = urls[w%len(urls)]
			} else {
				u = uint16(w % nURLs)
			}
			for d := 1; d <= 10; d++ {
				pl.homes = append(pl.homes, Home{W: int32(w), D: int32(d)})
				pl.pool = append(pl.pool, u)
			}
		}
	}
	if len(pl.homes) == 0 {
		return plan{}, errors.New("no active warehouse in this host's partitions")
	}
	return pl, nil
}

// noWaitHome is the index into plan.homes of no-wait worker k among nW
// warehouses: round-robin over warehouses first, then districts, so that
// --workers=W (tpccbench's rebalancing load) touches every warehouse.
func noWaitHome(k, nW int) int { return (k%nW)*10 + (k/nW)%10 }
