// Package remote runs commands and moves files on hosts: over SSH, on the
// local machine, or nowhere at all (the Recorder used by dry-run).
//
// A command is an argument vector (Cmd), never a shell string: the one
// place that turns it into the line a remote shell parses is ShellJoin, so
// no plan value can change what runs. Errors keep two failures apart: an
// ExitError is the remote command's own non-zero status; a TransportError
// means the host could not be reached or the connection broke, and only
// those are worth retrying.
//
// remote knows hosts by name and address; it knows nothing of plans,
// stages or benchmarks.
package remote
