// Package pgtest starts a throwaway, real PostgreSQL server for tests and
// benchmarks: initdb into a fresh directory, a postmaster listening on a free
// 127.0.0.1 port (never another address) with its unix socket inside that
// directory, and cleanup through testing.TB.
//
// A real server rather than a mock because the code under test is a
// database driver: COPY framing, partition routing, SQL semantics of the
// consistency checks and locking are exactly the things a fake would get
// wrong.
//
// When the test binary runs as root (as CI does), initdb and postgres run as
// the unprivileged user "benchrig" (override with BENCHRIG_TEST_USER):
// PostgreSQL refuses to run as root. The data directory is created outside
// t.TempDir, whose 0700 root-owned parent that user could not traverse.
//
// Available reports why a server cannot be started (no initdb found, no
// unprivileged user); Start skips the test with that reason, or fails it
// under CI (CI=true), where a missing server is a broken set-up
// (internal/testneeds).
package pgtest
