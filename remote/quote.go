package remote

import (
	"net"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/internal/shellquote"
)

// envName is what a POSIX shell accepts as a variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ShellJoin renders c as the one line a POSIX shell on the host parses.
// It is the only place in benchrig that builds shell text: every argument,
// the working directory and every environment value is single-quoted, so
// metacharacters in plan values (`;`, `$(...)`, quotes, newlines) stay
// literal. The result is deterministic (environment sorted by name), so
// dry-run output can be compared byte for byte.
//
// An environment name that is not a valid shell identifier cannot be
// passed safely; ShellJoin quotes it anyway as an argument of env(1),
// which then rejects it on the host, rather than letting it through.
func ShellJoin(c Cmd) string {
	var b strings.Builder
	if c.Dir != "" {
		b.WriteString("cd ")
		b.WriteString(Quote(c.Dir))
		b.WriteString(" && ")
	}
	if len(c.Env) > 0 {
		names := make([]string, 0, len(c.Env))
		for k := range c.Env {
			names = append(names, k)
		}
		sort.Strings(names)
		b.WriteString("env")
		for _, k := range names {
			b.WriteByte(' ')
			if envName.MatchString(k) {
				b.WriteString(k)
				b.WriteByte('=')
				b.WriteString(Quote(c.Env[k]))
			} else {
				b.WriteString(Quote(k + "=" + c.Env[k]))
			}
		}
		b.WriteByte(' ')
		if len(c.Args) > 0 && strings.Contains(c.Args[0], "=") {
			// env(1) takes every leading NAME=VALUE as an assignment,
			// even after "--"; a shell in between runs the program by name.
			b.WriteString(`sh -c 'exec "$@"' sh `)
		}
	}
	for i, a := range c.Args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 0 && len(c.Env) == 0 && strings.Contains(a, "=") {
			// A bare NAME=VALUE in command position is an assignment;
			// a quoted one is a word.
			b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
			continue
		}
		b.WriteString(Quote(a))
	}
	return b.String()
}

// Quote returns s as one word for a POSIX shell: the one shell-quoting
// function, kept in internal/shellquote so that packages below remote
// (completion scripts) quote through it too.
var Quote = shellquote.Quote

// The functions below are the other interpreters a plan value can reach
// after the host's shell: SQL text, a PostgreSQL connection URL and tar's
// command line. Each is the one way benchrig writes a value for that
// interpreter; validation rejects, with file:line:col, what none of them
// can carry (a NUL byte in SQL, a tar member that is not a plain relative
// path, a path pg_ctl would hand to its own /bin/sh).

// SQLLiteral returns s as an SQL string literal that means s whatever the
// session's standard_conforming_strings: a plan may turn that setting off
// (PostgreSQL), and the next configure (a resume, a rerun) then reads a
// backslash in '...' as an escape, so that \' would end the string. A
// value without a backslash is '...' with each ' doubled, which both
// settings read the same (and CockroachDB, and the recipes, write); one
// with a backslash is the escape form E'...', where PostgreSQL and
// CockroachDB always read a doubled backslash or quote as one. SQL
// text cannot hold a NUL byte; validation rejects such values first.
func SQLLiteral(s string) string {
	q := strings.ReplaceAll(s, "'", "''")
	if !strings.Contains(s, `\`) {
		return "'" + q + "'"
	}
	return "E'" + strings.ReplaceAll(q, `\`, `\\`) + "'"
}

// SQLIdent returns s as a quoted SQL identifier: "..." with each " doubled.
func SQLIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// PostgresURL builds a postgres:// connection URL with net/url, so that the
// user, the host (an IPv6 address is bracketed), the database and every
// query parameter are escaped: no value can add a parameter, change the
// host or end the path.
func PostgresURL(user, host string, port int, db string, params url.Values) string {
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(host, strconv.Itoa(port)), Path: "/" + db}
	if user != "" {
		u.User = url.User(user)
	}
	if len(params) > 0 {
		u.RawQuery = params.Encode()
	}
	return u.String()
}

// TarExtractArgs is the argv that writes one member of a gzipped archive to
// stdout. The member comes after "--", so a name starting with '-' cannot
// be read as an option (--checkpoint-action=exec=... runs a command), and
// --no-wildcards makes tar match it literally.
func TarExtractArgs(archive, member string) []string {
	return []string{"tar", "-xzf", archive, "-O", "--no-wildcards", "--", member}
}
