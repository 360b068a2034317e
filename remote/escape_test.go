package remote

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// hostileWords are the seeds of every escaping test and fuzzer.
var hostileWords = []string{
	"", " ", "plain", "; touch /tmp/x", "$(touch /tmp/x)", "`touch /tmp/x`", "${HOME}", `it's`, `"`, `\`, `\'`,
	"a\nb", "\t", "*", "?", "[a]", ">x", "a|b", "a&b", "~", "#x", "!", "%", "é", "a=b", "--", "-n",
	"'$'", "\x01", "''", `""`, "x'; DROP TABLE t; --", `E'\''`, "$$", "$q$", "\\x00", "\u2028", "\xff\xfe",
	"--checkpoint=1 --checkpoint-action=exec=touch /tmp/x", strings.Repeat("x'", 50),
}

// shEcho runs `printf %s WORD` through a real /bin/sh and returns what the
// program received.
func shEcho(t testing.TB, word string) string {
	t.Helper()
	out, err := exec.Command("/bin/sh", "-c", "printf '%s' "+word).Output()
	if err != nil {
		t.Fatalf("sh rejected %s: %v", word, err)
	}
	return string(out)
}

// FuzzQuote: any string without NUL (argv cannot hold one) comes back from
// a real /bin/sh byte for byte, and nothing else is run.
func FuzzQuote(f *testing.F) {
	for _, w := range hostileWords {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 || len(s) > 4096 {
			t.Skip()
		}
		if got := shEcho(t, Quote(s)); got != s {
			t.Fatalf("Quote(%q) = %s; sh gave back %q", s, Quote(s), got)
		}
	})
}

// FuzzShellJoin: a whole command line comes back from /bin/sh as the same
// argv.
func FuzzShellJoin(f *testing.F) {
	for _, w := range hostileWords {
		f.Add(w, "x"+w)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.IndexByte(a+b, 0) >= 0 || len(a)+len(b) > 4096 {
			t.Skip()
		}
		line := ShellJoin(Cmd{Args: []string{"printf", `%s\0`, a, b}})
		out, err := exec.Command("/bin/sh", "-c", line).Output()
		if err != nil {
			t.Fatalf("sh rejected %s: %v", line, err)
		}
		if want := a + "\x00" + b + "\x00"; string(out) != want {
			t.Fatalf("%s: got %q want %q", line, out, want)
		}
	})
}

// sqlRoundTrip has a real server evaluate SELECT <literal> AS <ident>
// and returns the value and the column name it saw.
func sqlRoundTrip(t testing.TB, c *pgx.Conn, lit, ident string) (string, string) {
	t.Helper()
	// The text goes as one simple-protocol Query message, as psql -c sends
	// it (pgx's own simple mode refuses standard_conforming_strings off).
	stmt := "SELECT " + SQLLiteral(lit) + "::text AS " + SQLIdent(ident)
	res, err := c.PgConn().Exec(context.Background(), stmt).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].FieldDescriptions) != 1 {
		t.Fatalf("%s: want one statement, one row, one column: %+v", stmt, res)
	}
	return string(res[0].Rows[0][0]), res[0].FieldDescriptions[0].Name
}

// sqlOK says whether a string can be SQL text at all: PostgreSQL refuses
// NUL and invalid UTF-8 in a UTF8 database (validation rejects both).
func sqlOK(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// sqlConns are two sessions of one real PostgreSQL: standard_conforming_strings
// on (the default) and off (which a plan's settings can make the server's
// default, so that the next configure runs under it).
func sqlConns(t testing.TB) map[string]*pgx.Conn {
	srv := pgtest.Start(t, pgtest.NoSync())
	conns := map[string]*pgx.Conn{}
	for _, mode := range []string{"on", "off"} {
		conn, err := pgx.Connect(context.Background(), srv.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		if _, err := conn.Exec(context.Background(), "SET standard_conforming_strings = "+mode); err != nil {
			t.Fatal(err)
		}
		conns[mode] = conn
	}
	return conns
}

// FuzzSQLEscaping: a literal and an identifier come back from a real
// PostgreSQL byte for byte (identifiers up to NAMEDATALEN-1 bytes), with
// standard_conforming_strings on and off.
func FuzzSQLEscaping(f *testing.F) {
	for _, w := range hostileWords {
		f.Add(w)
	}
	for _, w := range []string{`\'`, `\`, `x\'; SELECT 1; --`, `\\'`, `E'\x41'`, `\'||pg_sleep(1)||'`} {
		f.Add(w)
	}
	conns := sqlConns(f)
	var mu sync.Mutex // one connection, used by one query at a time
	f.Fuzz(func(t *testing.T, s string) {
		if !sqlOK(s) || len(s) > 4096 {
			t.Skip()
		}
		ident := s
		if ident == "" || len(ident) > 63 {
			ident = "x"
		}
		mu.Lock()
		defer mu.Unlock()
		for mode, conn := range conns {
			v, name := sqlRoundTrip(t, conn, s, ident)
			if v != s || name != ident {
				t.Fatalf("standard_conforming_strings %s: SQLLiteral(%q)/SQLIdent: server saw %q and %q", mode, s, v, name)
			}
		}
	})
}

// TestSQLLiteralBothWays: the case on a real server, both ways: a
// value with \' is one literal, and what follows it stays inside.
func TestSQLLiteralBothWays(t *testing.T) {
	for mode, conn := range sqlConns(t) {
		for _, s := range []string{`\'`, `x\'; SELECT 1; --`, `C:\dir\`, `\\`, `it''s`, "plain"} {
			if v, _ := sqlRoundTrip(t, conn, s, "x"); v != s {
				t.Errorf("standard_conforming_strings %s: %q came back as %q", mode, s, v)
			}
		}
	}
}

// FuzzPostgresURL: the user and database of a URL come back unchanged from
// pgx's parser (the one every benchrig command uses), whatever they hold,
// and no value adds a parameter or changes the host.
func FuzzPostgresURL(f *testing.F) {
	for _, w := range hostileWords {
		f.Add(w, w, "10.0.0.1")
	}
	f.Add("root", "tpcc", "::1")
	f.Add("a@b:c", "d?x=y#z", "node-1.example")
	f.Fuzz(func(t *testing.T, user, db, host string) {
		if !sqlOK(user+db) || user == "" || db == "" || strings.ContainsAny(user+db, "\x00") {
			t.Skip()
		}
		if host != "::1" && host != "10.0.0.1" && host != "node-1.example" {
			host = "10.0.0.1" // hosts are validated names or addresses
		}
		u := PostgresURL(user, host, 26257, db, url.Values{"sslmode": {"disable"}})
		cfg, err := pgconn.ParseConfig(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if cfg.User != user || cfg.Database != db || cfg.Host != host || cfg.Port != 26257 || cfg.TLSConfig != nil {
			t.Fatalf("%s: parsed as user %q db %q host %q port %d", u, cfg.User, cfg.Database, cfg.Host, cfg.Port)
		}
		if len(cfg.RuntimeParams) != 0 {
			t.Fatalf("%s: a value added parameters %v", u, cfg.RuntimeParams)
		}
	})
}

// TestTarExtractArgs runs the real tar on members named like options and
// wildcards: each is extracted as itself, and a member that would be an
// option (--checkpoint-action=exec) runs nothing.
func TestTarExtractArgs(t *testing.T) {
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	archive := filepath.Join(dir, "a.tgz")
	members := map[string]string{
		"d/plain":                   "plain",
		"d/*":                       "star",
		"--checkpoint":              "dash",
		"-x":                        "x",
		"d/$(touch " + marker + ")": "subst",
	}
	writeTgz(t, archive, members)
	for name, body := range members {
		out, err := exec.Command(TarExtractArgs(archive, name)[0], TarExtractArgs(archive, name)[1:]...).Output()
		if err != nil || string(out) != body {
			t.Errorf("member %q: got %q, %v; want %q", name, out, err, body)
		}
	}
	for _, name := range []string{
		"--checkpoint=1 --checkpoint-action=exec=touch " + marker,
		"--checkpoint=1", "--checkpoint-action=exec=touch " + marker, "--to-command=touch " + marker, "d/?lain",
	} {
		args := TarExtractArgs(archive, name)
		// Through a shell too, as the install script runs it.
		line := ShellJoin(Cmd{Args: args})
		out, err := exec.Command("/bin/sh", "-c", line).CombinedOutput()
		if err == nil {
			t.Errorf("member %q: extracted %q; want 'not found in archive'", name, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a member name ran a command")
	}
}

func writeTgz(t *testing.T, path string, members map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, body := range members {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	f.Close()
}
