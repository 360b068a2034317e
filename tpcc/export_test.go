package tpcc

import (
	"context"
	"testing"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// The internal tests cannot import the packages above this one (they
// import it), so choose_ext_test.go (package tpcc_test) hands in at init
// what they need of them: the composition point's profile choice and
// install (tpcc/profile.Choose, Install), and tpcctest's loaded database
// and consistency check, which they share with the profiles' tests.
var (
	chooseForTests          ChooseProfile
	installForTests         func(ctx context.Context, db Execer, d Dialect) error
	loadWarehousesForTests  func(t testing.TB, install func(ctx context.Context, db Execer, d Dialect) error, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server)
	checkConsistentForTests func(t testing.TB, url string)
)

// TestHooks is what choose_ext_test.go hands in.
type TestHooks struct {
	Choose          ChooseProfile
	Install         func(ctx context.Context, db Execer, d Dialect) error
	LoadWarehouses  func(t testing.TB, install func(ctx context.Context, db Execer, d Dialect) error, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server)
	CheckConsistent func(t testing.TB, url string)
}

// SetTestHooks is how choose_ext_test.go hands them in.
func SetTestHooks(h TestHooks) {
	chooseForTests, installForTests = h.Choose, h.Install
	loadWarehousesForTests, checkConsistentForTests = h.LoadWarehouses, h.CheckConsistent
}

// chosen is cfg choosing its profile as the command layer makes it
// choose (tpcc/profile.Choose).
func chosen(cfg RunConfig) RunConfig {
	if cfg.ChooseProfile == nil {
		cfg.ChooseProfile = chooseForTests
	}
	return cfg
}

// loadOneWarehouse starts a real PostgreSQL, creates the schema and loads one
// warehouse with the DATA side's loader.
func loadOneWarehouse(t testing.TB, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	return loadWarehouses(t, 1, 1, opts...)
}

// loadWarehouses loads w warehouses into a fresh database of a new
// server, initialised as tpcc init does it (every profile's install).
func loadWarehouses(t testing.TB, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	return loadWarehousesForTests(t, installForTests, w, partitions, opts...)
}

// benchDatabase is a loaded warehouse on a durable server: benchmarks keep
// fsync, since commit costs are part of what the database spends.
func benchDatabase(b *testing.B) (string, *pgtest.Server) {
	b.Helper()
	return loadOneWarehouse(b)
}

func checkConsistent(t *testing.T, url string) {
	t.Helper()
	checkConsistentForTests(t, url)
}
