package tpcc

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipelinedProfile is ProfilePipelined: the driver's transactions in
// new_order.go, payment.go, ... (worker, terminal.go, is its Executor)
// and its sizing in run.go.
type pipelinedProfile struct{}

// Pipelined is the pipelined profile (tpcc/profile.Choose asks for it
// here until it has a package of its own).
func Pipelined() LoadProfile { return pipelinedProfile{} }

func (pipelinedProfile) Name() Profile { return ProfilePipelined }

func (pipelinedProfile) Conns(cfg *RunConfig, workers int) int {
	if cfg.Wait == 0 {
		return workers
	}
	return (workers + WaitTerminalsPerConn - 1) / WaitTerminalsPerConn
}

func (pipelinedProfile) RunConstants(r *Rand, m Meta) Constants { return NewRunConstants(r, m.Load) }

// NewExecutor is a worker. Under SSI a sequential scan locks its whole
// relation (issue 22): a SERIALIZABLE run on PostgreSQL asks for index
// scans.
func (pipelinedProfile) NewExecutor(s Session) Executor {
	w := newWorker(s.Rand, s.Constants, s.Warehouses, s.Retry, s.ReadWrite, s.ReadOnly, s.Tally.cnt)
	w.indexPlans = s.Dialect == Postgres && s.ReadWrite.IsoLevel == pgx.Serializable
	return w
}

// FirstDue spreads the terminals over their first keying time, so they
// do not all submit at once; the ramp only delays measuring.
func (pipelinedProfile) FirstDue(r *Rand, _, _ int, first TxnType, cfg *RunConfig) int64 {
	return int64(r.Float64() * float64(KeyingTime(first, cfg.Wait)))
}

func (pipelinedProfile) NoWaitStart(int, int, time.Duration) time.Duration { return 0 }

func (pipelinedProfile) Warm(context.Context, []*pgxpool.Pool, int, Dialect) error { return nil }
