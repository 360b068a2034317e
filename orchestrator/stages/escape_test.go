package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/pgtest"
)

// TestInstallScriptTarMember runs the real install script (real sh, curl
// on a file:// URL, real tar) with the payload as the member: even
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
		steps := installBinary(h, plan.Binary{URL: "file://" + archive, SHA256: hex.EncodeToString(sum[:]), Member: member}, dest, false)
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

// TestSQLValueThroughPostgres: every setting value the plan can hold
// (validation has rejected control characters) is one SQL value to a
// real server: a number bare, anything else a literal that comes back
// unchanged.
func TestSQLValueThroughPostgres(t *testing.T) {
	srv := pgtest.Start(t, pgtest.NoSync())
	conn, err := pgx.Connect(context.Background(), srv.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, v := range []string{
		"1", "0.5", "-3", "+5", ".5", "1e3", "true", "false", "64MB", "'", "''", `\`, `\'`, "x'; SELECT 1; --",
		"1; SELECT pg_sleep(10)", "1 OR 1=1", "$$", "$a$ x $a$", "E'\\x41'", "NaN", "Infinity", "0x10", "1_000", "é",
		"$(touch /tmp/x)", "`id`", "--", "/* x", "*/",
	} {
		stmt := "SELECT (" + sqlValue(v) + ")::text"
		rows, err := conn.Query(context.Background(), stmt, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Errorf("%q: %s: %v", v, stmt, err)
			continue
		}
		var got []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(got) != 1 {
			t.Errorf("%q: %s: rows %q, %v", v, stmt, got, err)
			continue
		}
		if strings.HasPrefix(sqlValue(v), "'") && got[0] != v {
			t.Errorf("%q: the server read %q", v, got[0])
		}
	}
}
