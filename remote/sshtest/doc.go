// Package sshtest starts real OpenSSH sshd servers on loopback addresses
// (127.0.0.2, 127.0.0.3, ...) so that tests, benchmarks and `make demo`
// exercise the same server software a cluster runs, not a fake.
//
// Each host of a Lab gets its own generated host keys (ed25519, ecdsa and
// rsa, so host-key algorithm negotiation is exercised), its own port, pid
// file and log; all hosts share one client key, authorized_keys and a
// known_hosts file listing every host key. When the process runs as root,
// sshd runs as the unprivileged user "benchrig" (created by .ci/setup)
// and logins are as that user: a non-root sshd can only log in its own
// user.
//
// The core API does not import package testing, because the demo uses it
// too; StartT is the thin wrapper for tests.
package sshtest
