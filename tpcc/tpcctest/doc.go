// Package tpcctest gives the tests of the packages above tpcc (the load
// profiles under tpcc/profile/...) a loaded TPC-C database on a real
// PostgreSQL (tpcc/pgtest) and the consistency check to run after them.
//
// It holds no test of its own and nothing a run uses. tpcc's own tests
// cannot import it (it imports tpcc): its external test file hands them
// these functions at init (tpcc/export_test.go), as it hands them
// tpcc/profile.Choose.
package tpcctest
