// Package testneeds decides what a test does when a real part it needs
// (PostgreSQL's server programs, OpenSSH's sshd or client) is not
// installed: on a developer's machine it skips, so a bare `go test ./...`
// still tests what it can; under CI (the environment variable CI set to
// true, as CI services do) it fails, because there a missing part is a
// broken set-up (.ci/setup installs them all), and a suite that skipped
// every SQL and SSH test would pass while testing far less.
package testneeds
