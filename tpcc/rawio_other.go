//go:build !linux

package tpcc

import "github.com/jackc/pgx/v5/pgconn"

// rawIO leaves cfg as it is: raw socket calls are made on Linux only,
// where workload hosts run the driver (rawio.go).
func rawIO(*pgconn.Config) {}
