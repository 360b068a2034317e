package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// txBeginner is what a transaction needs from a connection pool
// (*pgxpool.Pool satisfies it).
type txBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// warehouseDistrict is a terminal's fixed home: W_ID for every
// transaction (clause 2.4.1.1 etc.) and the D_ID it uses for Stock-Level
// (clause 2.8.1.1).
type warehouseDistrict struct {
	wID, dID int32
}

// worker executes transactions. Each executor goroutine owns one: its
// random stream and scratch buffers are not shared, so the run phase
// needs no locks besides the histograms'.
type worker struct {
	rng        *Rand
	constants  Constants // C-Run (clause 2.1.6)
	warehouses int       // W: remote warehouses are drawn from 1..W
	maxRetries int
	rwOptions  pgx.TxOptions
	roOptions  pgx.TxOptions
	stockSQL   [11]string
	cnt        *atomic.Pointer[counters]

	no        newOrderScratch
	prices    []float64
	priceIDs  []int32
	ids       []int32
	lastTotal float64 // New-Order's displayed total, kept so it is computed
}

func newWorker(rng *Rand, c Constants, warehouses, maxRetries int, rw, ro pgx.TxOptions, cnt *atomic.Pointer[counters]) *worker {
	return &worker{
		rng: rng, constants: c, warehouses: warehouses, maxRetries: maxRetries,
		rwOptions: rw, roOptions: ro, stockSQL: noStockSQL(), cnt: cnt,
		no: newOrderScratch{stock: make(map[[2]int32]stockRow, 16)},
	}
}

func (w *worker) counters() *counters { return w.cnt.Load() }

// otherWarehouse draws a warehouse other than home uniformly from 1..W
// (clauses 2.4.1.5.2, 2.5.1.2). Requires W > 1.
func (w *worker) otherWarehouse(home int32) int32 {
	x := int32(w.rng.Int(1, w.warehouses-1))
	if x >= home {
		x++
	}
	return x
}

// exec runs one transaction of type t for a terminal at home.
func (w *worker) exec(ctx context.Context, db txBeginner, t TxnType, home warehouseDistrict) (retries int, err error) {
	switch t {
	case NewOrderTxn:
		return w.newOrder(ctx, db, home)
	case PaymentTxn:
		return w.payment(ctx, db, home)
	case OrderStatusTxn:
		return w.orderStatus(ctx, db, home)
	case DeliveryTxn:
		return w.delivery(ctx, db, home)
	case StockLevelTxn:
		return w.stockLevel(ctx, db, home)
	}
	return 0, fmt.Errorf("unknown transaction type %d", t)
}

// inTx runs fn in a transaction, retrying serialization failures.
func (w *worker) inTx(ctx context.Context, db txBeginner, opts pgx.TxOptions, fn func(pgx.Tx) error) (int, error) {
	return w.retry(ctx, func() error {
		tx, err := db.BeginTx(ctx, opts)
		if err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		if err := fn(tx); err != nil {
			// Rollback's error adds nothing: the connection is discarded
			// by the pool if the rollback failed.
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		return nil
	})
}

// retry re-runs fn while it fails with a serialization failure or a
// deadlock (SQLSTATE 40001, 40P01), which are the database asking for a
// retry, not errors of the run. They are counted separately.
func (w *worker) retry(ctx context.Context, fn func() error) (retries int, err error) {
	for {
		err = fn()
		if err == nil || !Retryable(err) || retries >= w.maxRetries || ctx.Err() != nil {
			return retries, err
		}
		retries++
	}
}

// Retryable reports whether err is a serialization failure (40001) or a
// deadlock (40P01).
func Retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

// counters are the run's tallies for the audit (clause 9.2). They are
// swapped for a fresh set at the end of the ramp, so only the measurement
// interval is audited.
type counters struct {
	done, errors, retries [numTxnTypes]atomic.Int64

	noRollbacks, noLines, noRemoteLines atomic.Int64
	noOLCnt                             [16]atomic.Int64 // by O_OL_CNT, 5..15
	payRemote, payByName, osByName      atomic.Int64
	delSkipped                          atomic.Int64 // districts skipped by Delivery
	remoteLineW, remotePayW             bitset       // warehouses used remotely
}

func newCounters(warehouses int) *counters {
	return &counters{remoteLineW: newBitset(warehouses + 1), remotePayW: newBitset(warehouses + 1)}
}

// bitset records which warehouses were used; atomic so executors set bits
// without a lock.
type bitset []atomic.Uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) set(i int) { b[i/64].Or(1 << (uint(i) % 64)) }

func (b bitset) has(i int) bool { return b[i/64].Load()&(1<<(uint(i)%64)) != 0 }

func (b bitset) count() int {
	n := 0
	for i := range b {
		n += bits.OnesCount64(b[i].Load())
	}
	return n
}
