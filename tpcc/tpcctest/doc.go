// Package tpcctest gives the tests of the packages above tpcc (the load
// profiles under tpcc/profile/...) a loaded TPC-C database on a real
// PostgreSQL (tpcc/pgtest) and the consistency check to run after them.
//
// It holds no test of its own and nothing a run uses; tpcc's own tests
// cannot import it (it imports tpcc) and keep their copy in run_test.go.
package tpcctest
