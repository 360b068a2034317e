package pipelined

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
	"github.com/benchrig/benchrig/tpcc/tpcctest"
)

// siReadSample counts the SIRead (predicate) locks held on warehouse and
// district by granularity, as pg_locks shows them: "relation", "page" or
// "tuple".
type siReadSample map[string]int

// sampleSIRead reads pg_locks once.
func sampleSIRead(ctx context.Context, conn *pgx.Conn, into siReadSample) error {
	rows, err := conn.Query(ctx, `SELECT c.relname, l.locktype, count(*) FROM pg_locks l
JOIN pg_class c ON c.oid = l.relation
WHERE l.mode = 'SIReadLock' AND c.relname IN ('warehouse', 'district')
GROUP BY 1, 2`)
	if err != nil {
		return err
	}
	var rel, typ string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&rel, &typ, &n}, func() error {
		into[rel+"/"+typ] += n
		return nil
	})
	return err
}

// TestSerializableLocksRows shows the index plans work: during a serializable
// no-wait mix, pg_locks never shows a relation-level SIRead lock on
// warehouse or district, only row (tuple) locks. With the old statements
// (UPDATE warehouse/district ... WHERE key = $1, read by sequential scan
// on tables of one page) every sample held relation locks on both, and
// every pair of transactions touching them conflicted. The control step
// first shows the sampler sees such a lock when one exists, so the test
// can fail.
func TestSerializableLocksRows(t *testing.T) {
	if testing.Short() {
		t.Skip("loads two warehouses into a real PostgreSQL and runs 6 s")
	}
	url, _ := tpcctest.LoadWarehouses(t, 2, 1, pgtest.NoSync())
	ctx := context.Background()
	sampler, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer sampler.Close(ctx)

	// Control: the old Payment statement, in a serializable transaction
	// left open while the sampler looks.
	old, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close(ctx)
	tx, err := old.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = $1`, 1); err != nil {
		t.Fatal(err)
	}
	control := siReadSample{}
	if err := sampleSIRead(ctx, sampler, control); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if control["warehouse/relation"] == 0 {
		t.Fatalf("control: the old UPDATE warehouse ... WHERE w_id = $1 showed no relation-level SIRead lock (%v): the sampler cannot see what this test looks for", control)
	}

	var mu sync.Mutex
	seen := siReadSample{}
	samples := 0
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				done <- nil
				return
			case <-tick.C:
			}
			s := siReadSample{}
			if err := sampleSIRead(runCtx, sampler, s); err != nil {
				if runCtx.Err() != nil {
					done <- nil
				} else {
					done <- err
				}
				return
			}
			mu.Lock()
			samples++
			for k, v := range s {
				seen[k] += v
			}
			mu.Unlock()
		}
	}()
	res, err := tpcc.Run(ctx, tpcc.RunConfig{
		URLs: []string{url}, Warehouses: 2, Wait: 0, Workers: 4, Duration: 6 * time.Second,
		Isolation: pgx.Serializable, Seed: 22, ChooseProfile: choose,
	})
	stop()
	if serr := <-done; serr != nil {
		t.Fatalf("sampling pg_locks: %v", serr)
	}
	if err != nil {
		t.Fatalf("serializable run: %v", err)
	}
	t.Logf("%d samples, lock-samples summed: %v; %.0f tpmC, retries %v", samples, seen, res.TpmC, res.Retries)
	for _, rel := range []string{"warehouse", "district"} {
		for _, g := range []string{"relation", "page"} {
			if n := seen[rel+"/"+g]; n > 0 {
				t.Errorf("%s: %d %s-level SIRead locks over %d samples; want row locks only (%s)", rel, n, g, samples, fmt.Sprint(seen))
			}
		}
	}
	if samples < 10 || seen["warehouse/tuple"] == 0 {
		t.Errorf("%d samples, %v: the run's row locks on warehouse were never seen", samples, seen)
	}
}

// TestRetryKeepsPreparedStatements: a transaction retried after a
// serialization failure reuses its connection's prepared statements. pgx's
// statement cache forgets every statement of a failed batch and prepares
// it again (a new prepare_time in pg_prepared_statements); the worker's
// statements are prepared by name once per connection (worker.prepare),
// which a failure does not undo.
func TestRetryKeepsPreparedStatements(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	url := srv.NewDatabase(t)
	ctx := context.Background()
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if err := tpcc.Init(ctx, other, tpcc.InitOptions{Warehouses: 1, Seed: 42, Dialect: tpcc.Postgres}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, `INSERT INTO warehouse (w_id, w_tax) VALUES (0, 0.1);
INSERT INTO district (d_w_id, d_id, d_tax, d_next_o_id) VALUES (0, 1, 0.1, 3001)`); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement // the run's (tpcc.OpenPools)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tally := tpcc.NewTally(1)
	w := newWorker(tpcc.Session{Rand: tpcc.NewRand(1, 1), Warehouses: 1, Dialect: tpcc.Postgres,
		ReadWrite: pgx.TxOptions{IsoLevel: pgx.RepeatableRead},
		ReadOnly:  pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, Tally: tally})
	prepared := func() time.Time {
		var at time.Time
		if err := conn.QueryRow(ctx, `SELECT prepare_time FROM pg_prepared_statements WHERE statement = $1`, noDistrictSQL).Scan(&at); err != nil {
			t.Fatalf("the district upsert is not prepared: %v", err)
		}
		return at
	}
	// Attempt 1 reads (taking its snapshot), then another session commits
	// a change of the district row, then attempt 1's upsert of that row
	// fails with 40001; attempt 2 commits.
	attempts := 0
	upsert := func(tx *pipeTx) error {
		attempts++
		var b pgx.Batch
		b.Queue(noItemSQL, []int32{1})
		if err := tx.send(ctx, &b, false); err != nil {
			return err
		}
		if attempts == 1 {
			if _, err := other.Exec(ctx, `UPDATE district SET d_ytd = 1 WHERE d_w_id = 0 AND d_id = 1`); err != nil {
				return err
			}
		}
		var b2 pgx.Batch
		b2.Queue(noDistrictSQL, int32(0), int32(1))
		return tx.send(ctx, &b2, true)
	}
	w.txn = tpcc.NewOrderTxn
	attempts = 1 // a first transaction without conflict
	if _, err := w.inPipe(ctx, tpcc.PinnedConn{Conn: conn}, w.rwBegin, upsert); err != nil {
		t.Fatal(err)
	}
	before := prepared()
	attempts = 0
	retries, err := w.inPipe(ctx, tpcc.PinnedConn{Conn: conn}, w.rwBegin, upsert)
	if err != nil || retries != 1 {
		t.Fatalf("%d retries, %v; want one retry after a 40001", retries, err)
	}
	if after := prepared(); !after.Equal(before) {
		t.Errorf("the district upsert was prepared again after the serialization failure (%v, then %v)", before, after)
	}
	if tally.Figures().RetryWork[tpcc.NewOrderTxn] == 0 {
		t.Error("the failed attempt's time was not counted")
	}
}
