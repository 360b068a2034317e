package tpcctest

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// LoadWarehouses loads w warehouses (seed 42, partitions ways) into a
// fresh database of a new server, or skips the test without PostgreSQL.
func LoadWarehouses(t testing.TB, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	return LoadWarehousesWith(t, nil, w, partitions, opts...)
}

// Installer is tpcc.InitOptions.Install: what load profiles need beside
// the schema.
type Installer = func(ctx context.Context, db tpcc.Execer, d tpcc.Dialect) error

// LoadWarehousesWith is LoadWarehouses with install run by init, as the
// command layer runs tpcc/profile.Install.
func LoadWarehousesWith(t testing.TB, install Installer, w, partitions int, opts ...pgtest.Option) (string, *pgtest.Server) {
	t.Helper()
	srv := pgtest.Start(t, opts...)
	url := srv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := tpcc.Init(ctx, conn, tpcc.InitOptions{Warehouses: w, Seed: 42, Dialect: tpcc.Postgres, Partitions: partitions, Install: install}); err != nil {
		t.Fatalf("init: %v", err)
	}
	if _, err := tpcc.Load(ctx, tpcc.URLConnector([]string{url}), tpcc.LoadOptions{Concurrency: 2, Dialect: tpcc.Postgres}); err != nil {
		t.Fatalf("load: %v", err)
	}
	return url, srv
}

// CheckConsistent fails the test unless the database at url passes every
// consistency condition (clause 3.3.2), the expensive ones included.
func CheckConsistent(t testing.TB, url string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out bytes.Buffer
	if _, err := tpcc.Check(ctx, conn, tpcc.CheckOptions{Expensive: true, Out: &out}); err != nil {
		t.Fatalf("consistency check after the run: %v\n%s", err, out.String())
	}
}
