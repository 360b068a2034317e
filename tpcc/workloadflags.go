package tpcc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// This file gives `tpcc run` the behaviour of CockroachDB's `workload run
// tpcc` flags that recipes type: --mix, --max-rate, --max-ops, --method,
// the version-dependent URL-to-partition mapping and worker count.

// Mix is a transaction mix: a weight per transaction type (--mix).
type Mix [numTxnTypes]int

// DefaultMix is the spec's deck (clause 5.2.4.2) and workload's default
// --mix, newOrder=10,payment=10,orderStatus=1,delivery=1,stockLevel=1.
const DefaultMix = "newOrder=10,payment=10,orderStatus=1,delivery=1,stockLevel=1"

// ParseMix parses workload's --mix syntax, name=weight pairs separated by
// commas; a transaction not named has weight 0.
func ParseMix(s string) (Mix, error) {
	var m Mix
	names := map[string]TxnType{}
	for t := range numTxnTypes {
		names[t.String()] = t
	}
	total := 0
	for _, kv := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return Mix{}, fmt.Errorf("--mix %q: %q is not name=weight", s, kv)
		}
		t, known := names[strings.TrimSpace(name)]
		if !known {
			return Mix{}, fmt.Errorf("--mix %q: unknown transaction %q (want newOrder, payment, orderStatus, delivery, stockLevel)", s, name)
		}
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 0 || n > 1000 {
			return Mix{}, fmt.Errorf("--mix %q: weight %q of %s not in [0, 1000]", s, w, name)
		}
		total += n - m[t]
		m[t] = n
	}
	if total == 0 {
		return Mix{}, fmt.Errorf("--mix %q: all weights are zero", s)
	}
	return m, nil
}

func (m Mix) String() string {
	var parts []string
	for t := range numTxnTypes {
		if m[t] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", t, m[t]))
		}
	}
	return strings.Join(parts, ",")
}

// noCard fills the unused slots of a deck smaller than DeckSize; Next
// skips it, so a pass is a uniformly random order of the real cards.
const noCard = numTxnTypes

// NewDeckMix returns a deck dealing m: the weights divided by their
// greatest common divisor, which is exact (10:10:1:1:1 is the spec's 23
// cards; newOrder=1 alone is a one-card deck). A mix needing more than
// DeckSize cards after the division is refused rather than approximated.
func NewDeckMix(m Mix) (Deck, error) {
	g := 0
	for _, w := range m {
		g = gcd(g, w)
	}
	if g == 0 {
		return Deck{}, fmt.Errorf("mix %v: all weights are zero", m)
	}
	var d Deck
	i := 0
	for t, w := range m {
		for range w / g {
			if i == DeckSize {
				return Deck{}, fmt.Errorf("mix %v needs more than %d cards per deck; use smaller weights", m, DeckSize)
			}
			d.cards[i] = TxnType(t)
			i++
		}
	}
	for ; i < DeckSize; i++ {
		d.cards[i] = noCard
	}
	d.pos = DeckSize
	return d, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ParseMethod maps workload's --method to a pgx execution mode: prepare
// (the default: statements prepared once per connection), noprepare
// (extended protocol, no named statements) and simple (simple protocol,
// values inlined by pgx); pgx's own names are accepted too, as newer
// workloads do.
func ParseMethod(s string) (pgx.QueryExecMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "prepare", "cache_statement":
		return pgx.QueryExecModeCacheStatement, nil
	case "cache_describe":
		return pgx.QueryExecModeCacheDescribe, nil
	case "describe_exec":
		return pgx.QueryExecModeDescribeExec, nil
	case "noprepare", "exec":
		return pgx.QueryExecModeExec, nil
	case "simple", "simple_protocol":
		return pgx.QueryExecModeSimpleProtocol, nil
	}
	return 0, fmt.Errorf("--method %q: want prepare, noprepare or simple", s)
}

// opLimiter implements --max-rate (transactions per second over this
// host, evenly spaced) and --max-ops (transactions in all, then the run
// ends), as workload's worker loop applies them before each operation.
type opLimiter struct {
	interval time.Duration // 0: no rate limit
	maxOps   uint64        // 0: unlimited

	mu   sync.Mutex
	next time.Time
	ops  uint64
	done chan struct{} // closed when maxOps transactions have started
}

func newOpLimiter(maxRate float64, maxOps uint64) *opLimiter {
	if maxRate <= 0 && maxOps == 0 {
		return nil
	}
	l := &opLimiter{maxOps: maxOps, done: make(chan struct{})}
	if maxRate > 0 {
		l.interval = time.Duration(float64(time.Second) / maxRate)
	}
	return l
}

// take waits for the next slot; false when the run must stop (max-ops
// reached or ctx done). A nil limiter never limits.
func (l *opLimiter) take(ctx context.Context) bool {
	if l == nil {
		return ctx.Err() == nil
	}
	l.mu.Lock()
	if l.maxOps > 0 && l.ops >= l.maxOps {
		l.mu.Unlock()
		return false
	}
	l.ops++
	if l.ops == l.maxOps {
		close(l.done)
	}
	var wait time.Duration
	if l.interval > 0 {
		now := time.Now()
		if l.next.Before(now) {
			l.next = now
		}
		wait = l.next.Sub(now)
		l.next = l.next.Add(l.interval)
	}
	l.mu.Unlock()
	if wait <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// exhausted is closed once --max-ops transactions have started (nil,
// never ready, without a limit).
func (l *opLimiter) exhausted() <-chan struct{} {
	if l == nil || l.maxOps == 0 {
		return nil
	}
	return l.done
}

// urlPartitions maps URL j to the partition it serves, as workload does
// for the release: with one affinity value every URL serves it; otherwise
// up to v24.x URL j serves partition j % P (the nodes listed in rack
// order, roachprod's --racks giving node i rack i % R), and from v25.1
// (PR #134796) URL j serves affinity[j] (wrapping when there are more URLs
// than affinity values). A partition no URL serves uses all of them.
func urlPartitions(urlPerAffinity bool, partitions int, affinity []int, nURLs int) map[int][]uint16 {
	out := map[int][]uint16{}
	for j := range nURLs {
		var part int
		switch {
		case len(affinity) == 1:
			part = affinity[0]
		case urlPerAffinity && len(affinity) > 0:
			part = affinity[j%len(affinity)]
		default:
			part = j % partitions
		}
		out[part] = append(out[part], uint16(j))
	}
	return out
}

// WorkersForHost is the number of no-wait workers this host runs for
// --workers n, per release: up to v24.x workload makes n worker slots
// over all active warehouses (slot k gets the k % A'th, partition by
// partition) and keeps those in its affinity partitions, so a host gets
// its share of n; from v25.1 it cycles only through its own warehouses
// until n workers exist (so recipes pass --workers per host).
func WorkersForHost(urlPerAffinity bool, n int, p Partitions, affinity []int) int {
	if len(affinity) == 0 || urlPerAffinity {
		return n
	}
	mine := map[int]bool{}
	for _, a := range affinity {
		mine[a] = true
	}
	// totalElems: the active warehouses of every partition, in order.
	var owner []int
	for i := range p.Count {
		lo, hi := p.ActiveBounds(i)
		for range hi - lo {
			owner = append(owner, i)
		}
	}
	if len(owner) == 0 {
		return 0
	}
	count := 0
	for k := range n {
		if mine[owner[k%len(owner)]] {
			count++
		}
	}
	return count
}
