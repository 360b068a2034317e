// Package remote runs commands and moves files on hosts: over SSH, on the
// local machine, or nowhere at all (the Recorder used by dry-run).
//
// A command is an argument vector (Cmd), never a shell string: the one
// place that turns it into the line a remote shell parses is ShellJoin, so
// no plan value can change what runs. Errors keep failures apart: an
// ExitError is the remote command's own non-zero status; a TimeoutError
// is a command stopped at its Cmd.Timeout; a TransportError means the
// host could not be reached or the connection broke, and only those are
// worth retrying (SSH retries connects itself, never a started command),
// unless Permanent says waiting cannot heal them (a refused host key or
// login).
//
// The SSH executor (NewSSH) keeps one connection per host for all steps,
// bounds handshakes in flight (sshd's MaxStartups) and sessions per
// connection (MaxSessions), puts a deadline on the handshake, probes
// connections with keepalives, checks host keys against known_hosts by
// default (HostKeyPolicy), and honours ~/.ssh/config and ProxyJump.
// Transfers go over SFTP, tuned for throughput, verified with sha256,
// skipped when unchanged and renamed into place atomically. Long-running
// commands run as detached Jobs that survive a disconnect. Each fans a
// function out over hosts; Console prefixes live output with host names.
//
// remote knows hosts by name and address; it knows nothing of plans,
// stages or benchmarks. Package sshtest starts real sshd servers for its
// tests.
package remote
