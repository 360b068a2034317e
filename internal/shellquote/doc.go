// Package shellquote makes one word for a POSIX shell out of any string.
// It is the lowest layer of benchrig's escaping: remote builds the host
// command lines with it (remote.ShellJoin) and internal/completion the
// completion scripts, so both quote through the one function, tested
// through a real sh in remote's escaping tests.
package shellquote
