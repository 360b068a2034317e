package tpcc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// BenchmarkLoadVsCopyCeiling measures benchrig's load against what the
// server can ingest, in the same run on the same durable PostgreSQL:
//
//  1. benchrig: Load of 4 warehouses (2 connections, one transaction per
//     warehouse, COPY FROM STDIN of generated rows, then ANALYZE);
//  2. the ceiling: the very same rows, dumped to local files, loaded into
//     a second database with the server's own COPY ... FROM '<file>' in
//     the same units (2 sessions, one transaction per warehouse, then
//     ANALYZE). No client, no network, no generation: what the server
//     alone needs.
//
// benchrig loads over loopback TCP, where the kernel charges part of the
// receiving side's work to the sender's system time, so the client's user
// time alone is reported too.
//
// Reported: load/ceiling wall-time ratio (target <= 1.2), the client's CPU
// as a fraction of the server's during the load (target <= 0.05; all, and
// user time only), and the server CPU of each path.
func BenchmarkLoadVsCopyCeiling(b *testing.B) {
	const warehouses = 4
	srv := pgtest.Start(b)
	ctx := context.Background()
	dir := filepath.Join(srv.Dir(), "ceiling")
	if err := os.Mkdir(dir, 0o777); err != nil {
		b.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // the server writes the dump as its own user
		b.Fatal(err)
	}
	var loadWall, ceilWall, loadClient, loadUser, loadServer, ceilServer time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		url := initDatabase(b, srv, warehouses, uint64(i+1))
		c0, u0, s0, t0 := pgtest.SelfCPU(b), selfUserCPU(b), pgtest.ServerCPU(b, srv), time.Now()
		b.StartTimer()
		if _, err := Load(ctx, URLConnector([]string{url}), LoadOptions{Concurrency: 2, Dialect: Postgres}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		loadWall += time.Since(t0)
		loadClient += pgtest.SelfCPU(b) - c0
		loadUser += selfUserCPU(b) - u0
		loadServer += pgtest.ServerCPU(b, srv) - s0

		units := dumpUnits(b, url, dir)
		url2 := initDatabase(b, srv, warehouses, uint64(i+1))
		s0, t0 = pgtest.ServerCPU(b, srv), time.Now()
		copyCeiling(b, url2, units)
		ceilWall += time.Since(t0)
		ceilServer += pgtest.ServerCPU(b, srv) - s0
		for _, u := range units {
			for _, f := range u {
				os.Remove(f.path)
			}
		}
	}
	n := float64(b.N)
	b.ReportMetric(loadWall.Seconds()/n, "load-s")
	b.ReportMetric(ceilWall.Seconds()/n, "COPY-ceiling-s")
	b.ReportMetric(loadWall.Seconds()/ceilWall.Seconds(), "load/ceiling")
	b.ReportMetric(loadClient.Seconds()/loadServer.Seconds(), "client/server-CPU")
	b.ReportMetric(loadUser.Seconds()/loadServer.Seconds(), "client-user/server-CPU")
	b.ReportMetric(loadServer.Seconds()/n, "load-server-CPU-s")
	b.ReportMetric(ceilServer.Seconds()/n, "ceiling-server-CPU-s")
}

// selfUserCPU is this process's user CPU time so far (no system time).
func selfUserCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano())
}

// initDatabase creates a database with the schema for w warehouses.
func initDatabase(b *testing.B, srv *pgtest.Server, w int, seed uint64) string {
	b.Helper()
	ctx := context.Background()
	url := srv.NewDatabase(b)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := Init(ctx, conn, InitOptions{Warehouses: w, Seed: seed, Dialect: Postgres}); err != nil {
		b.Fatal(err)
	}
	return url
}

// dumpFile is one table's rows of one load unit, in a server-side file.
type dumpFile struct{ table, path string }

// dumpUnits writes every table's rows to files with the server's COPY TO,
// grouped as Load groups them: the item table, then one unit per
// warehouse.
func dumpUnits(b *testing.B, url, dir string) [][]dumpFile {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT w_id FROM warehouse ORDER BY w_id")
	if err != nil {
		b.Fatal(err)
	}
	ws, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	var units [][]dumpFile
	var item []dumpFile
	perW := make([][]dumpFile, len(ws))
	for _, t := range schemaTables() {
		if t.WCol == "" {
			f := dumpFile{t.Name, filepath.Join(dir, strings.Trim(t.Name, `"`)+".copy")}
			copyTo(b, conn, "COPY "+t.Name+" TO "+quoteLiteral(f.path))
			item = append(item, f)
			continue
		}
		for i, w := range ws {
			f := dumpFile{t.Name, filepath.Join(dir, fmt.Sprintf("%s.%d.copy", strings.Trim(t.Name, `"`), w))}
			copyTo(b, conn, fmt.Sprintf("COPY (SELECT * FROM %s WHERE %s = %d) TO %s", t.Name, t.WCol, w, quoteLiteral(f.path)))
			perW[i] = append(perW[i], f)
		}
	}
	units = append(units, item)
	return append(units, perW...)
}

func copyTo(b *testing.B, conn *pgx.Conn, sql string) {
	b.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
}

// quoteLiteral quotes a path as a SQL string literal (the benchmark's own
// temporary paths; no value from outside reaches it).
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// copyCeiling loads the units with the server's COPY FROM '<file>', two
// sessions, one transaction per unit, then ANALYZE, as Load does.
func copyCeiling(b *testing.B, url string, units [][]dumpFile) {
	b.Helper()
	ctx := context.Background()
	next := make(chan []dumpFile, len(units))
	for _, u := range units {
		next <- u
	}
	close(next)
	g, gctx := errgroup.WithContext(ctx)
	for range 2 {
		g.Go(func() error {
			conn, err := pgx.Connect(gctx, url)
			if err != nil {
				return err
			}
			defer conn.Close(context.Background())
			for u := range next {
				tx, err := conn.Begin(gctx)
				if err != nil {
					return err
				}
				for _, f := range u {
					if _, err := tx.Exec(gctx, "COPY "+f.table+" FROM "+quoteLiteral(f.path)); err != nil {
						tx.Rollback(context.Background())
						return fmt.Errorf("%s: %w", f.path, err)
					}
				}
				if err := tx.Commit(gctx); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
}
