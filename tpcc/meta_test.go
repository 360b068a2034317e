package tpcc

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestDatabaseMeta: with benchrig_meta the stored row; without it the
// warehouse count from the data (w_id 0..W-1) and C-Load from the data
// seed, as workload derives its constants from --seed; a 1-based or
// gapped warehouse table is refused.
func TestDatabaseMeta(t *testing.T) {
	t.Parallel()
	s := pgtest.Start(t, pgtest.NoSync())
	ctx := context.Background()
	url := s.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, _, err := DatabaseMeta(ctx, conn, 0); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("empty database: %v, want ErrNotLoaded", err)
	}
	if err := Init(ctx, conn, InitOptions{Warehouses: 3, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	m, stored, err := DatabaseMeta(ctx, conn, 0)
	if err != nil || !stored || m != MetaForSeed(9, 3, 1) {
		t.Errorf("with benchrig_meta: %+v stored=%v err=%v, want %+v", m, stored, err, MetaForSeed(9, 3, 1))
	}
	if _, _, err := DatabaseMeta(ctx, conn, 9); err != nil {
		t.Errorf("matching data seed: %v", err)
	}
	if _, _, err := DatabaseMeta(ctx, conn, 1); !errors.Is(err, ErrMismatch) {
		t.Errorf("data seed 1 on a seed-9 database: %v, want ErrMismatch", err)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE benchrig_meta"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := DatabaseMeta(ctx, conn, 0); !errors.Is(err, ErrNotLoaded) {
		t.Errorf("no meta, empty warehouse table: %v, want ErrNotLoaded", err)
	}
	for _, tc := range []struct {
		ids  string
		seed uint64
		want Meta // zero: ErrNotLoaded
	}{
		{"0, 1, 2", 0, MetaForSeed(1, 3, 0)},
		{"0, 1, 2, 3", 9, MetaForSeed(9, 4, 0)},
		{"1, 2, 3", 0, Meta{}}, // benchrig's old 1-based layout
		{"0, 2", 0, Meta{}},
	} {
		if _, err := conn.Exec(ctx, "TRUNCATE warehouse; INSERT INTO warehouse (w_id) SELECT unnest(ARRAY["+tc.ids+"])"); err != nil {
			t.Fatal(err)
		}
		m, stored, err := DatabaseMeta(ctx, conn, tc.seed)
		if tc.want == (Meta{}) {
			if !errors.Is(err, ErrNotLoaded) {
				t.Errorf("ids %s: %+v, %v; want ErrNotLoaded", tc.ids, m, err)
			}
			continue
		}
		if err != nil || stored || m != tc.want {
			t.Errorf("ids %s seed %d: %+v stored=%v err=%v, want %+v", tc.ids, tc.seed, m, stored, err, tc.want)
		}
	}
	// Partitioning a database without benchrig_meta records nothing and
	// fails on nothing.
	if err := RecordPartitions(ctx, conn, 3); err != nil {
		t.Errorf("recordPartitions without benchrig_meta: %v", err)
	}
}

// TestDataConstants: the C-Load the console and the result name is the
// data's: 0 for C_LAST of data IMPORTed from workload:// sources without
// benchrig_meta (as the report says), the seed's for workload init's,
// benchrig_meta's when stored.
func TestDataConstants(t *testing.T) {
	seed := MetaForSeed(1, 10, 0)
	if got := dataConstants(seed, false, true); got.CLast != 0 || got.CID != seed.Load.CID {
		t.Errorf("imported: %s, want C_LAST=0", got)
	}
	if got := dataConstants(seed, false, false); got != seed.Load {
		t.Errorf("workload init: %s, want the seed's %s", got, seed.Load)
	}
	stored := seed
	stored.Load.CLast = 200
	if got := dataConstants(stored, true, true); got != stored.Load {
		t.Errorf("benchrig_meta: %s, want %s", got, stored.Load)
	}
	if seed.Load.CLast == 0 {
		t.Fatal("the seed's C-Load is 0: the test cannot tell")
	}
}
