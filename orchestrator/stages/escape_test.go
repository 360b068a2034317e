package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/internal/testneeds"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestInstallScriptTarMember runs the real install script (real sh, curl
// against an HTTP server on 127.0.0.1, real tar) with the payload as the member: even
// if validation let it through, tar reads it as a name after "--", so the
// command never runs.
func TestInstallScriptTarMember(t *testing.T) {
	for _, prog := range []string{"curl", "tar", "sha256sum"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	want := strings.Join(remote.TarExtractArgs(`"$tmp"`, `"$member"`), " ")
	if !strings.Contains(installScript, want) {
		t.Fatalf("the install script does not extract as remote.TarExtractArgs (%s)", want)
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	archive := filepath.Join(dir, "c.tgz")
	out, err := exec.Command("sh", "-c", `mkdir -p "$1/d" && echo bin > "$1/d/cockroach" && tar -czf "$2" -C "$1" d`, "sh", dir, archive).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	srv, _ := serveBytes(t, data)
	for _, member := range []string{
		"--checkpoint=1 --checkpoint-action=exec=touch " + marker,
		"--checkpoint=1",
		"--to-command=touch " + marker,
		"d/cockroach",
	} {
		dest := filepath.Join(dir, "dest")
		os.Remove(dest)
		os.Remove(dest + ".archive-sha256")
		h := plan.Host{Name: "h"}
		steps := installBinary(h, plan.Binary{URL: srv + "/c.tgz", SHA256: hex.EncodeToString(sum[:]), Member: member}, dest, false)
		line := remote.ShellJoin(steps[0].Cmd)
		out, err := exec.Command("sh", "-c", line).CombinedOutput()
		if member == "d/cockroach" {
			if got, _ := os.ReadFile(dest); err != nil || string(got) != "bin\n" {
				t.Errorf("plain member: %v %s: installed %q", err, out, got)
			}
			continue
		}
		if err == nil {
			t.Errorf("member %q: the script succeeded: %s", member, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a tar member ran a command")
	}
}

// serveBytes serves data at every path on 127.0.0.1 and records each
// request's URI as sent (before any decoding).
func serveBytes(t *testing.T, data []byte) (string, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var uris []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.RequestURI)
		mu.Unlock()
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &uris
}

// TestInstallScriptURLGlob runs the real install script with real curl
// against a local HTTP server: URLs with curl's globbing syntax ("[1-3]",
// "{a,b}") make exactly one request, for the literal path, and install
// the one file; a redirect to file:// is not followed.
func TestInstallScriptURLGlob(t *testing.T) {
	for _, prog := range []string{"curl", "sha256sum"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	data := []byte("#!/bin/sh\necho hi\n")
	sum := sha256.Sum256(data)
	for _, p := range []string{"/bin[1-3]", "/{a,b}/cockroach", "/x[0-9][0-9]{q,r}"} {
		srv, uris := serveBytes(t, data)
		dest := filepath.Join(t.TempDir(), "cockroach")
		steps := installBinary(plan.Host{Name: "h"}, plan.Binary{URL: srv + p, SHA256: hex.EncodeToString(sum[:])}, dest, false)
		out, err := exec.Command("sh", "-c", remote.ShellJoin(steps[0].Cmd)).CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v\n%s", p, err, out)
		}
		if len(*uris) != 1 || (*uris)[0] != p {
			t.Errorf("%s: requests %q, want one for the literal path", p, *uris)
		}
		if got, _ := os.ReadFile(dest); string(got) != string(data) {
			t.Errorf("%s: installed %q", p, got)
		}
	}
	// A redirect to another protocol: curl refuses to follow it.
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, data, 0o600); err != nil {
		t.Fatal(err)
	}
	redir := httptest.NewServer(http.RedirectHandler("file://"+secret, http.StatusFound))
	defer redir.Close()
	dest := filepath.Join(t.TempDir(), "cockroach")
	steps := installBinary(plan.Host{Name: "h"}, plan.Binary{URL: redir.URL + "/c", SHA256: hex.EncodeToString(sum[:])}, dest, false)
	if out, err := exec.Command("sh", "-c", remote.ShellJoin(steps[0].Cmd)).CombinedOutput(); err == nil {
		t.Errorf("a redirect to file:// was followed:\n%s", out)
	}
	if _, err := os.Stat(dest); err == nil {
		t.Error("installed a file read through a file:// redirect")
	}
}

// TestSQLValueThroughPostgres: every setting value the plan can hold
// (validation has rejected control characters) is one SQL value to a
// real server, with standard_conforming_strings on and off (a plan may
// set it off; the next configure then runs under it): a number bare,
// anything else a literal that comes back unchanged.
func TestSQLValueThroughPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	for _, mode := range []string{"on", "off"} {
		conn, err := pgx.Connect(context.Background(), srv.URL("postgres"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "SET standard_conforming_strings = "+mode); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{
			"1", "0.5", "-3", "+5", ".5", "1e3", "true", "false", "64MB", "'", "''", `\`, `\'`, "x'; SELECT 1; --",
			`x\'; SELECT 1; --`, `\\'`, "1; SELECT pg_sleep(10)", "1 OR 1=1", "$$", "$a$ x $a$", "E'\\x41'", "NaN", "Infinity", "0x10", "1_000", "é",
			"$(touch /tmp/x)", "`id`", "--", "/* x", "*/",
		} {
			// One simple-protocol Query message, as psql -c sends it.
			stmt := "SELECT (" + sqlValue(v) + ")::text"
			res, err := conn.PgConn().Exec(context.Background(), stmt).ReadAll()
			if err != nil {
				t.Errorf("standard_conforming_strings %s: %q: %s: %v", mode, v, stmt, err)
				continue
			}
			if len(res) != 1 || len(res[0].Rows) != 1 {
				t.Errorf("standard_conforming_strings %s: %q: %s: %d results", mode, v, stmt, len(res))
				continue
			}
			if got := string(res[0].Rows[0][0]); sqlValue(v) != v && got != v {
				t.Errorf("standard_conforming_strings %s: %q: the server read %q", mode, v, got)
			}
		}
	}
}

// TestConfigureTwiceWithNonstandardStrings is the case through the
// compiled configure step, run twice with the real psql against a real
// PostgreSQL: the plan turns standard_conforming_strings off, so the
// second configure (a resume, a rerun) runs in sessions where a backslash
// escapes; a value holding \' must still be set exactly, and nothing after
// it may run.
func TestConfigureTwiceWithNonstandardStrings(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	if len(bins) == 0 {
		testneeds.Missing(t, "no psql (PostgreSQL's client; run .ci/setup)")
	}
	value := `x\'; ALTER SYSTEM SET work_mem = '77kB'; --`
	quoted := strings.ReplaceAll(strings.ReplaceAll(value, `\`, `\\`), `"`, `\"`)
	text := `version: 1
name: sco
flavor: postgres
nodes:
  - name: db1
    addr: 127.0.0.1
    sql_port: ` + strconv.Itoa(srv.Port()) + `
binaries:
  database: {host: ` + filepath.Dir(bins[0]) + `}
settings:
  cluster:
    standard_conforming_strings: "off"
    log_line_prefix: "` + quoted + `"
tpcc:
  warehouses: 1
stages: [configure]
`
	p, err := plan.ParsePlan("sco.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var apply remote.Cmd
	for _, s := range list[0].Steps {
		if s.What == "apply settings" {
			apply = s.Cmd
		}
	}
	if len(apply.Args) == 0 {
		t.Fatal("no apply settings step")
	}
	apply.Env = map[string]string{"PGUSER": "postgres"}
	ex := remote.NewLocal(remote.LocalConfig{})
	for i := 1; i <= 2; i++ {
		if res, err := ex.Run(context.Background(), "db1", apply); err != nil {
			t.Fatalf("configure %d: %v\n%s%s", i, err, res.Stdout, res.Stderr)
		}
	}
	conn, err := pgx.Connect(context.Background(), srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for name, want := range map[string]string{"standard_conforming_strings": "off", "log_line_prefix": value, "work_mem": "4MB"} {
		var got string
		if err := conn.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
}
