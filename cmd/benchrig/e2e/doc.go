// Package e2e runs the benchrig command end to end on a lab of real
// OpenSSH sshd on loopback, as plans/local.yaml's topology: three
// PostgreSQL nodes (127.0.0.2-4) and two workload hosts, the benchrig
// binary uploaded to the workload hosts, and the orchestrator as a
// separate process so that it can be SIGKILLed. Its own tests run whole
// plans; e2e/faults runs the same topology with faults made to order.
// The tests are two packages so that `go test ./...` runs the two halves
// side by side: one package of them took most of CI's time limit.
//
// # Tests run in parallel
//
// Every test of both packages begins with t.Parallel(), and a new test
// file follows the same pattern:
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		e := e2e.New(t, "5s", e2e.PlanOpts{...})
//		...
//	}
//
// They may, because each test's Env is its own: New starts a lab of its
// own (sshd on ports picked free, behind its own fault proxies), picks
// the PostgreSQL port with FreePort (never one given to another test of
// the process), names the hosts' work directories with NewPrefix (unique
// in the login user's home, which every lab shares) and keeps the run
// directory under t.TempDir. A test that builds a topology by hand
// (NewBase) must take its port and prefix the same way. Two phases of one
// test that depend on each other (a run, then a resume of it; a refused
// plan, then the same lab accepting another) stay in that one test, in
// order; what does not depend on an earlier phase belongs in a test of
// its own, which then overlaps the others.
//
// Main (each package's TestMain) lets Parallel() tests run at once, as
// the tests mostly wait on fixed run durations and on remote jobs rather
// than compute; -test.parallel given on the command line overrides it
// (-parallel 1 runs them one at a time, to tell a test's failure from
// the load of its neighbours).
//
// # Time
//
// docs/measure/test-suite.md has what each test and package costs, and
// how it was measured; a change that adds minutes says so there.
package e2e
