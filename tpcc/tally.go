package tpcc

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Tally is where an executor records the audit's figures of the
// transactions it ran (clause 9.2). The run swaps its counters for fresh
// ones at the end of the ramp, so only the measurement interval is
// audited; a Tally always records into the current ones.
type Tally struct{ cnt *atomic.Pointer[counters] }

// NewTally is a tally of its own for a run over warehouses warehouses
// (tests that run executors without Run).
func NewTally(warehouses int) Tally {
	var p atomic.Pointer[counters]
	p.Store(newCounters(warehouses))
	return Tally{&p}
}

// NewOrder records a finished New-Order (clause 9.2.2.5): its lines, a
// rollback, and the supplying warehouse of each remote line (supply(i) is
// line i's).
func (t Tally) NewOrder(home int32, lines int, rollback bool, supply func(i int) int32) {
	t.cnt.Load().newOrder(home, lines, rollback, supply)
}

// Payment records a finished Payment of a terminal at home for a
// customer of warehouse customerW, selected by last name or not.
func (t Tally) Payment(home, customerW int32, byName bool) {
	t.cnt.Load().payment(home, customerW, byName)
}

// OrderStatus records a finished Order-Status, by last name or not.
func (t Tally) OrderStatus(byName bool) {
	if byName {
		t.cnt.Load().osByName.Add(1)
	}
}

// Delivery records the districts a finished Delivery skipped (clause
// 2.7.2.3 requires them reported; the audit, 9.2.1.7, checks they stay
// under 1%).
func (t Tally) Delivery(skipped int) {
	if skipped > 0 {
		t.cnt.Load().delSkipped.Add(int64(skipped))
	}
}

// RetryCost adds what retrying a transaction of type typ cost: a failed
// attempt's time or a backoff sleep (both inside the retried
// transaction's latency).
func (t Tally) RetryCost(typ TxnType, work, backoff time.Duration) {
	if t.cnt == nil {
		return // a bare executor (unit tests)
	}
	c := t.cnt.Load()
	c.retryWork[typ].Add(int64(work))
	c.retryBackoff[typ].Add(int64(backoff))
}

// TallyFigures are a tally's counts so far, for tests that compare what
// two profiles recorded of the same transactions.
type TallyFigures struct {
	Rollbacks, Lines, RemoteLines  int64 // New-Order (clause 9.2.2.5)
	RemotePayments, PaymentsByName int64
	OrderStatusesByName            int64
	SkippedDistricts               int64 // Delivery (clause 2.7.2.3)
	RetryWork, RetryBackoff        [NumTxnTypes]time.Duration
}

// Figures reads the tally's current counters.
func (t Tally) Figures() TallyFigures {
	c := t.cnt.Load()
	f := TallyFigures{
		Rollbacks: c.noRollbacks.Load(), Lines: c.noLines.Load(), RemoteLines: c.noRemoteLines.Load(),
		RemotePayments: c.payRemote.Load(), PaymentsByName: c.payByName.Load(),
		OrderStatusesByName: c.osByName.Load(), SkippedDistricts: c.delSkipped.Load(),
	}
	for ty := range NumTxnTypes {
		f.RetryWork[ty] = time.Duration(c.retryWork[ty].Load())
		f.RetryBackoff[ty] = time.Duration(c.retryBackoff[ty].Load())
	}
	return f
}

// counters are the run's tallies for the audit (clause 9.2). They are
// swapped for a fresh set at the end of the ramp, so only the measurement
// interval is audited.
type counters struct {
	done, errors, retries [numTxnTypes]atomic.Int64
	gaveUp                [numTxnTypes]atomic.Int64 // errors that are exhausted retry budgets
	// What retries cost, in nanoseconds: the failed attempts' time and
	// the backoff sleeps (both inside the retried transactions' latency).
	retryWork, retryBackoff [numTxnTypes]atomic.Int64

	noRollbacks, noLines, noRemoteLines atomic.Int64
	noOLCnt                             [16]atomic.Int64 // by O_OL_CNT, 5..15
	payRemote, payByName, osByName      atomic.Int64
	delSkipped                          atomic.Int64 // districts skipped by Delivery
	remoteLineW, remotePayW             bitset       // warehouses used remotely
	homeW                               bitset       // home warehouses of the counted New-Orders and Payments
}

// newOrder records a finished New-Order's audit figures (clause 9.2.2.5):
// its lines, a rollback, and the supplying warehouse of each remote line
// (supply(i) is line i's). Both load profiles count through it.
func (c *counters) newOrder(home int32, lines int, rollback bool, supply func(i int) int32) {
	c.homeW.set(int(home))
	c.noLines.Add(int64(lines))
	c.noOLCnt[lines].Add(1)
	if rollback {
		c.noRollbacks.Add(1)
	}
	for i := range lines {
		if s := supply(i); s != home {
			c.noRemoteLines.Add(1)
			c.remoteLineW.set(int(s))
		}
	}
}

// payment records a finished Payment's audit figures (clause 9.2.2.5): a
// terminal at home paid for a customer of warehouse customerW, selected
// by last name or not. Every load profile counts through it.
func (c *counters) payment(home, customerW int32, byName bool) {
	c.homeW.set(int(home))
	if customerW != home {
		c.payRemote.Add(1)
		c.remotePayW.set(int(customerW))
	}
	if byName {
		c.payByName.Add(1)
	}
}

func newCounters(warehouses int) *counters {
	return &counters{remoteLineW: newBitset(warehouses + 1), remotePayW: newBitset(warehouses + 1), homeW: newBitset(warehouses + 1)}
}

// bitset records which warehouses were used; atomic so executors set bits
// without a lock.
type bitset []atomic.Uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

// set reads before it writes: every New-Order and Payment sets its home's
// bit, and a load leaves the shared word in every core's cache where an
// atomic OR would take it for itself each time.
func (b bitset) set(i int) {
	if bit := uint64(1) << (uint(i) % 64); b[i/64].Load()&bit == 0 {
		b[i/64].Or(bit)
	}
}

func (b bitset) has(i int) bool { return b[i/64].Load()&(1<<(uint(i)%64)) != 0 }

func (b bitset) count() int {
	n := 0
	for i := range b {
		n += bits.OnesCount64(b[i].Load())
	}
	return n
}
