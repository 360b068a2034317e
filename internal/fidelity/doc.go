// Package fidelity checks the conformance tables of docs/fidelity/<release>.md
// against the repository, so that a table cannot drift from the code:
//
//   - the release's side of every row cites its source as path:LINE at a
//     commit the file's Sources table lists in full (`pkg/...go:LINE @
//     <commit>`, cockroach-go's `crdb/...go:LINE`, the documentation's
//     `src/current/...md:LINE`), never benchrig's research notes;
//   - benchrig's side of every row names the code that implements it, and
//     that code carries the row's tag, a comment `fidelity:<release>/<id>`
//     beside it (in a Go declaration, or in a YAML plan or preset). The
//     check resolves the tags in both directions: every row has tagged
//     code, every tag names a row, and the declarations a row names are
//     exactly the ones its tags sit in, so a row whose code moves to
//     another declaration, is renamed or disappears fails;
//   - a row is not anchored only on code that no program code uses (a
//     declaration only tests call describes nothing benchrig does);
//   - the tests a row says pin it exist.
//
// It does not judge the facts (the tests each row names do), nor read the
// release's source (not here in CI): a row is re-read against its cited
// line when it is written or its code changes.
package fidelity
