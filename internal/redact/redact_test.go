package redact

import (
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Every connection-string form pgx accepts, each checked to be one (pgx
// parses it and finds the password), then redacted.
var forms = []struct {
	name, conn, password, want string
}{
	{"url", "postgres://bench:s3cret@db1:5432/tpcc", "s3cret", "postgres://bench:****@db1:5432/tpcc"},
	{"postgresql scheme", "postgresql://bench:s3cret@db1/tpcc?sslmode=disable", "s3cret", "postgresql://bench:****@db1/tpcc?sslmode=disable"},
	{"percent-encoded", "postgres://bench:p%40ss%2Fw%3Ard@db1/tpcc", "p@ss/w:rd", "postgres://bench:****@db1/tpcc"},
	{"unescaped at sign", "postgres://bench:pw7@ss@db1/tpcc", "pw7", "postgres://bench:****@db1/tpcc"},
	{"query password", "postgres://bench@db1/tpcc?sslmode=disable&password=s3cret", "s3cret", "postgres://bench@db1/tpcc?sslmode=disable&password=****"},
	{"query password encoded", "postgres://db1/tpcc?password=a%20b%26c&user=bench", "a b&c", "postgres://db1/tpcc?password=****&user=bench"},
	{"query and userinfo", "postgres://bench:one@db1/tpcc?password=s3cret", "s3cret", "postgres://bench:****@db1/tpcc?password=****"},
	{"multi-host", "postgres://bench:s3cret@host1:26257,host2:26258,host3/tpcc?target_session_attrs=any", "s3cret", "postgres://bench:****@host1:26257,host2:26258,host3/tpcc?target_session_attrs=any"},
	{"ipv6", "postgres://bench:s3cret@[::1]:5432/tpcc", "s3cret", "postgres://bench:****@[::1]:5432/tpcc"},
	{"ipv6 multi-host", "postgres://bench:s3cret@[::1]:5432,[fe80::2]:5433/tpcc", "s3cret", "postgres://bench:****@[::1]:5432,[fe80::2]:5433/tpcc"},
	{"unix socket host", "postgres://bench:s3cret@%2Fvar%2Frun%2Fpostgresql/tpcc", "s3cret", "postgres://bench:****@%2Fvar%2Frun%2Fpostgresql/tpcc"},
	{"unix socket query", "postgres:///tpcc?host=/tmp&user=bench&password=s3cret", "s3cret", "postgres:///tpcc?host=/tmp&user=bench&password=****"},
	{"empty user", "postgres://:s3cret@db1/tpcc", "s3cret", "postgres://:****@db1/tpcc"},
	{"keyword/value", "host=db1 user=bench password=s3cret dbname=tpcc", "s3cret", "host=db1 user=bench password=**** dbname=tpcc"},
	{"keyword/value quoted", `host=db1 password='a b\'c' user=bench`, "a b'c", "host=db1 password=**** user=bench"},
	{"keyword/value spaces", "host=db1 password = s3cret user=bench", "s3cret", "host=db1 password = **** user=bench"},
	{"keyword/value backslash", `password=a\ b\\c host=db1`, `a b\c`, "password=**** host=db1"},
	{"keyword/value last", "host=db1 password='s3cret'", "s3cret", "host=db1 password=****"},
	{"keyword/value unix socket", "host=/var/run/postgresql password=s3cret", "s3cret", "host=/var/run/postgresql password=****"},
	{"sslpassword", "postgres://bench@db1/tpcc?sslpassword=s3cret&password=other", "other", "postgres://bench@db1/tpcc?sslpassword=****&password=****"},
}

func TestURLForms(t *testing.T) {
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			cfg, err := pgx.ParseConfig(f.conn)
			if err != nil {
				t.Fatalf("pgx does not take %q: %v", f.conn, err)
			}
			if cfg.Password != f.password {
				t.Fatalf("pgx reads password %q from %q, the test expects %q", cfg.Password, f.conn, f.password)
			}
			got := URL(f.conn)
			if got != f.want {
				t.Errorf("URL(%q) = %q, want %q", f.conn, got, f.want)
			}
			for _, form := range []string{f.password, url.PathEscape(f.password), url.QueryEscape(f.password)} {
				if strings.Contains(got, form) {
					t.Errorf("URL(%q) = %q still shows the password (%q)", f.conn, got, form)
				}
			}
		})
	}
}

func TestURLUnparsable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:pa/ss@db/x", "postgres://****@db/x"},
		{"postgres://u:pa?ss@db/x", "postgres://****@db/x"},
		{"host=db password='never closed", "host=db password=****"},
		{"host='never closed password=s3cret", "host=****"},
		{"password=", "password="},
		{"", ""},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	// The licence arrives as an SQL literal; programs echo it in any form.
	const lit = `'ab''c"d e'`
	raw := `ab'c"d e`
	for _, text := range []string{
		"SET CLUSTER SETTING enterprise.license = " + lit,
		"invalid license: " + raw,
		`{"error":"bad key ab'c\"d e"}`,
		"sh: 'ab'\\''c\"d e': not found",
		"GET /check?key=" + url.QueryEscape(raw),
		"key ab''c\"d e rejected",
	} {
		got := Secrets(text, lit)
		if strings.Contains(got, "c\"d") || strings.Contains(got, `c\"d`) || strings.Contains(got, "c%22d") {
			t.Errorf("Secrets(%q) = %q leaks the secret", text, got)
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("Secrets(%q) = %q has no mask", text, got)
		}
	}
	if got := Secrets("nothing here", "", "''"); got != "nothing here" {
		t.Errorf("empty secrets changed the text: %q", got)
	}
}

// FuzzURL: whatever the password, no form of a connection string that
// carries it shows it after redaction.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"s3cret", "a b'c", `a\b`, "p@ss/w:rd?#&=", "'", "ünï", "x y=z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		if len(pw) < 4 || strings.ContainsAny(pw, "\x00") {
			t.Skip()
		}
		kvQuoted := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
		conns := []string{
			"postgres://bench:" + url.PathEscape(pw) + "@h1:1,h2:2/db?sslmode=disable",
			"postgresql://bench:" + url.QueryEscape(pw) + "@[::1]:5432/db",
			"postgres://bench@db/x?password=" + url.QueryEscape(pw) + "&sslmode=disable",
			"postgres://bench:" + pw + "@db/x",
			"host=db user=bench password=" + kvQuoted + " dbname=x",
			"password=" + kvQuoted,
		}
		for _, c := range conns {
			got := URL(c)
			skeleton := strings.Replace(c, pw, "", -1)
			for _, form := range []string{pw, url.PathEscape(pw), url.QueryEscape(pw), kvQuoted} {
				if len(form) >= 4 && strings.Contains(got, form) && !strings.Contains(skeleton, form) && !strings.Contains(Mask, form) {
					t.Fatalf("URL(%q) = %q shows the password as %q", c, got, form)
				}
			}
		}
		got := Secrets("echo: "+pw+" / "+"'"+strings.ReplaceAll(pw, "'", "''")+"'", "'"+strings.ReplaceAll(pw, "'", "''")+"'")
		if strings.Contains(got, pw) && !strings.Contains(Mask, pw) {
			t.Fatalf("Secrets left %q in %q", pw, got)
		}
	})
}
