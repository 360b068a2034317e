// Package procs sizes the Go scheduler of a running driver to the CPU it
// needs: a Governor watches the process's own CPU time and sets
// runtime.GOMAXPROCS between 1 and the cores it may use.
//
// # Why
//
// A TPC-C driver waits on the network almost all the time. With one P per
// core, every reply that wakes a goroutine can wake another OS thread, and
// idle Ps spin looking for work before they sleep: measured here (W=4, 8
// no-wait workers, one call per transaction, PostgreSQL on the same two
// cores), GOMAXPROCS=2 cost 0.37-0.41 s of client CPU per 1,000
// New-Orders and GOMAXPROCS=1 0.28-0.29 s, with 10-20 % more New-Orders,
// because the cycles the driver spun were the server's. But one P cannot
// serve a host of 200,000 spec-paced terminals, and no fixed number suits
// every run, so the number follows the demand: start at one P, add Ps
// while the process uses nearly all of those it has, give one back after
// it has used clearly fewer for several periods.
//
// The decision (Next) is a pure function of the measured CPU use, so it is
// tested by tables; Governor only reads the clock and getrusage and calls
// runtime.GOMAXPROCS.
package procs
