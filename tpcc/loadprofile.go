package tpcc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/benchrig/benchrig/internal/redact"
)

// LoadProfile is what Run asks of a load profile: which SQL the terminals
// send for each transaction, over how many connections, how a run ramps
// up, and how a transaction retries. A run has one, chosen once by name
// (RunConfig.ChooseProfile) when its dialect is known; Run never asks
// which one it is. The profiles live under tpcc/profile/... and import
// this package; this package imports none of them.
//
// To add a profile: implement LoadProfile and Executor in a package of
// its own under tpcc/profile, using Session, Pool, Home and Tally (and,
// as the pipelined and functions profiles do, Inputs to draw the spec's
// inputs, RetryPolicy.Retry to retry and SpecPacing to pace), add its
// name to tpcc/runspec's Profiles and make it in the composition point's
// choice (tpcc/profile.Choose).
type LoadProfile interface {
	// Name is the profile's name, as the result and the report give it.
	Name() Profile
	// Conns is the connection count over all URLs when --conns is not
	// given, for workers executors on this host.
	Conns(cfg *RunConfig, workers int) int
	// RunConstants is C-Run (clause 2.1.6) for a database loaded with m.
	RunConstants(r *Rand, m Meta) Constants
	// FirstDue is when paced terminal i (of n, in plan order) first
	// submits, its first card being first: ns after the run's start.
	FirstDue(r *Rand, i, n int, first TxnType, cfg *RunConfig) int64
	// NoWaitStart is when no-wait worker k of n starts.
	NoWaitStart(k, n int, ramp time.Duration) time.Duration
	// Warm prepares the pools, perURL connections each, before the run
	// starts.
	Warm(ctx context.Context, pools []*pgxpool.Pool, perURL int, d Dialect) error
	// NewExecutor makes the executor of one executor goroutine (a
	// no-wait worker, or an executor serving paced terminals).
	NewExecutor(s Session) Executor
}

// Executor runs transactions on one goroutine: its state (random
// stream, scratch buffers) is its own, so executors need no locks.
type Executor interface {
	// Exec runs one transaction of type t for a terminal at home on a
	// connection of db, retrying as the profile retries. It returns the
	// retries made and the transaction's error: nil for a success and
	// ErrNewOrderRollback for New-Order's 1% rollback (a completed
	// New-Order).
	Exec(ctx context.Context, db Pool, t TxnType, home Home) (retries int, err error)
}

// ChooseProfile gives a run the profile named p ("": the dialect's
// default, DefaultProfile) for a run of cfg on dialect d over parts. The
// run's composition point (tpcc/profile.Choose) knows every profile; Run
// calls it once, when the dialect is known.
type ChooseProfile func(p Profile, d Dialect, cfg *RunConfig, parts Partitions) (LoadProfile, error)

// DefaultProfile is a dialect's profile when none is chosen: workload's
// load on CockroachDB, where the published results come from; benchrig's
// pipelined load on PostgreSQL.
func DefaultProfile(d Dialect) Profile {
	if d == Cockroach {
		return ProfileWorkload
	}
	return ProfilePipelined
}

// NumTxnTypes is the number of transaction types: an array indexed by
// TxnType has this length.
const NumTxnTypes = numTxnTypes

// Session is what the run gives one executor: its share of the run's
// state. Everything in it is the executor's own or safe to share.
type Session struct {
	// Rand is the executor's random stream (clause 2.1.5); the run draws
	// its terminals' cards and think times from it too.
	Rand       *Rand
	Constants  Constants // C-Run (clause 2.1.6)
	Warehouses int       // W loaded: remote warehouses are drawn from 0..W-1
	Dialect    Dialect
	// Retry is the run's policy for 40001/40P01 (defaults applied).
	Retry RetryPolicy
	// ReadWrite and ReadOnly are the run's transaction options (its
	// isolation level).
	ReadWrite, ReadOnly pgx.TxOptions
	Tally               Tally
}

// Home is a terminal's fixed home: W_ID for every transaction (clause
// 2.4.1.1 etc.) and the D_ID it uses for Stock-Level (clause 2.8.1.1).
type Home struct {
	W, D int32
}

// Pool is where a transaction gets its connection: single statements
// (Stock-Level), or a connection for a whole transaction with the
// function that gives it back.
type Pool interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	AcquireConn(ctx context.Context) (*pgx.Conn, func(), error)
}

// PgxPool serves transactions from a pgx pool.
type PgxPool struct{ *pgxpool.Pool }

// AcquireConn takes a connection of the pool until release is called.
func (p PgxPool) AcquireConn(ctx context.Context) (*pgx.Conn, func(), error) {
	c, err := p.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c.Conn(), c.Release, nil
}

// PinnedConn serves every transaction on one connection (warming each
// connection of a pool in turn, tests).
type PinnedConn struct{ *pgx.Conn }

// AcquireConn returns the connection; release does nothing.
func (p PinnedConn) AcquireConn(context.Context) (*pgx.Conn, func(), error) {
	return p.Conn, func() {}, nil
}

// ErrNewOrderRollback is the expected 1% rollback of clause 2.4.2.3: a
// profile returns it for a New-Order whose unused item id was not found,
// and the run counts it as a completed New-Order.
var ErrNewOrderRollback = errors.New("new-order: unused item id, rolled back")

// BeginSQL is the BEGIN statement for opts.
func BeginSQL(opts pgx.TxOptions) string {
	s := "BEGIN"
	if opts.IsoLevel != "" {
		s += " ISOLATION LEVEL " + string(opts.IsoLevel)
	}
	if opts.AccessMode != "" {
		s += " " + string(opts.AccessMode)
	}
	return s
}

// chooseProfile resolves cfg.Profile for this run: the dialect is asked
// first (one connection, closed again) since the default and the SQL
// depend on it, and the connection count the pools open depends on the
// profile.
func (cfg *RunConfig) chooseProfile(ctx context.Context, parts Partitions) (LoadProfile, error) {
	conn, err := pgx.Connect(ctx, cfg.URLs[0])
	if err != nil {
		return nil, fmt.Errorf("tpcc run: connect %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	defer conn.Close(context.Background())
	d, err := DetectDialect(ctx, conn)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: %s: %w", redact.URL(cfg.URLs[0]), err)
	}
	return cfg.profileFor(d, parts)
}

// profileFor is the run's profile on dialect d, as cfg.ChooseProfile
// gives it: this package holds no profile.
func (cfg *RunConfig) profileFor(d Dialect, parts Partitions) (LoadProfile, error) {
	if cfg.ChooseProfile == nil {
		return nil, errors.New("tpcc run: no load profile: RunConfig.ChooseProfile is unset (the command layer gives tpcc/profile.Choose)")
	}
	p, err := cfg.ChooseProfile(cfg.Profile, d, cfg, parts)
	if err != nil {
		return nil, fmt.Errorf("tpcc run: --profile: %w", err)
	}
	return p, nil
}

// SpecPacing is the part of a LoadProfile that paces and sizes a run as
// the spec's terminals are paced: WaitTerminalsPerConn paced terminals
// per connection (one per no-wait worker), a C-Run whose delta to C-Load
// is valid (clause 2.1.6.1), terminals spread over their first keying
// time so that they do not all submit at once (the ramp only delays
// measuring), and no warm-up. The pipelined and functions profiles embed
// it.
type SpecPacing struct{}

// Conns is one connection per no-wait worker, or per
// WaitTerminalsPerConn paced terminals.
func (SpecPacing) Conns(cfg *RunConfig, workers int) int {
	if cfg.Wait == 0 {
		return workers
	}
	return (workers + WaitTerminalsPerConn - 1) / WaitTerminalsPerConn
}

// RunConstants draws C-Run for the database's C-Load (clause 2.1.6.1).
func (SpecPacing) RunConstants(r *Rand, m Meta) Constants { return NewRunConstants(r, m.Load) }

// FirstDue is uniform over the first card's keying time.
func (SpecPacing) FirstDue(r *Rand, _, _ int, first TxnType, cfg *RunConfig) int64 {
	return int64(r.Float64() * float64(KeyingTime(first, cfg.Wait)))
}

// NoWaitStart starts every no-wait worker at once.
func (SpecPacing) NoWaitStart(int, int, time.Duration) time.Duration { return 0 }

// Warm does nothing: connections open as the run needs them.
func (SpecPacing) Warm(context.Context, []*pgxpool.Pool, int, Dialect) error { return nil }

// IndexPlans tells a profile to ask PostgreSQL for index scans in the
// session's read-write transactions: the run is SERIALIZABLE on
// PostgreSQL, where a sequential scan takes a relation-level SIRead lock
// ("A sequential scan will always necessitate a relation-level predicate
// lock", PostgreSQL's documentation of the Serializable Isolation
// Level), so that a transaction reading one row of a small table that
// the planner scans (warehouse, district) conflicts with every
// transaction writing any row of it.
func (s Session) IndexPlans() bool {
	return s.Dialect == Postgres && s.ReadWrite.IsoLevel == pgx.Serializable
}
