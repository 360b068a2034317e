// Package share is the host side of the install stage's distribution
// of the benchrig binary: `benchrig serve-file`, run on a host that has
// the binary already, serves its gzip stream over plain HTTP on the
// host's plan address for a bounded time, so that the other hosts fetch
// it from there over the cluster's network (curl, with Range to resume)
// instead of each receiving it from the operator's machine. The
// orchestrator sends the binary across its own link once, to the first
// host (stages/distribute.go lays out the tree).
//
// Nothing served is trusted by its receiver: every host checks the
// sha256 of the unpacked binary against the digest the orchestrator
// pinned before it runs it. The server needs no credentials and hands
// out only this one public file, read-only.
package share
