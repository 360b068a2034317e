package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/internal/testneeds"
	"github.com/benchrig/benchrig/orchestrator"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestHostilePlans runs the hostile-plan corpus (orchestrator/plan/testdata/
// hostile): injections through every string field, out-of-bounds numbers,
// odd encodings, duplicates and alias bombs. Each plan says on its first
// line what must happen:
//
//	# expect: reject TEXT   `benchrig run` exits 3 before contacting any
//	                        host, naming file:line:col and TEXT (with
//	                        the placeholders below filled in)
//	# expect: run           it runs for real against sshd on loopback and
//	                        a PostgreSQL it starts, and exits 0
//
// Every payload would create the marker file (@MARKER@, in a directory
// the hosts' login user can write); it must never appear.
func TestHostilePlans(t *testing.T) {
	files, _ := filepath.Glob("../../orchestrator/plan/testdata/hostile/*.yaml")
	if len(files) < 30 {
		t.Fatalf("only %d hostile plans", len(files))
	}
	markDir, err := os.MkdirTemp("", "benchrig-hostile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(markDir) })
	if err := os.Chmod(markDir, 0o777); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(markDir, "marker")
	t.Setenv("HOSTILE_LICENSE", "crl-0-hostile")
	// A FIFO for the plans that name one as a local file: opening it
	// without O_NONBLOCK would hang the run.
	if err := syscall.Mkfifo(filepath.Join(markDir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"@MARKER@": marker, "@SSHCONFIG@": "/nonexistent/ssh_config", "@KNOWNHOSTS@": "/nonexistent/known_hosts",
		"@PORT@": "5432", "@PREFIX@": "benchrig-hostile", "@PGBIN@": "/usr/lib/postgresql/15/bin", "@HOSTILEDIR@": markDir,
	}
	var runnable []string
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		expect := expectation(data)
		if expect == "run" {
			runnable = append(runnable, f)
			continue
		}
		want, ok := strings.CutPrefix(string(substitute([]byte(expect), vars)), "reject ")
		if !ok {
			t.Errorf("%s: first line must be '# expect: reject TEXT' or '# expect: run', got %q", f, expect)
			continue
		}
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			plan := filepath.Join(dir, name)
			if err := os.WriteFile(plan, substitute(data, vars), 0o644); err != nil {
				t.Fatal(err)
			}
			// The SSH config and known_hosts do not exist: a plan that got
			// past validation would fail to connect (exit != 3).
			code, out, errOut := runCLI(t, "run", "--runs-dir", filepath.Join(dir, "runs"), plan)
			if code != exitInvalidPlan {
				t.Fatalf("exit %d, want %d (invalid plan)\nstdout: %s\nstderr: %s", code, exitInvalidPlan, out, errOut)
			}
			// The problem is named at its place: file:line:col: ...TEXT...
			at := regexp.MustCompile(regexp.QuoteMeta(plan) + `:\d+:\d+: [^\n]*` + regexp.QuoteMeta(want))
			if !at.MatchString(errOut) {
				t.Errorf("want file:line:col and %q:\n%s", want, errOut)
			}
			if strings.Contains(out+errOut, "crl-0-") {
				t.Error("a licence value was printed")
			}
			// license-env-path.yaml names PATH as the licence.
			if path := os.Getenv("PATH"); len(path) > 8 && strings.Contains(out+errOut, path) {
				t.Error("a refused licence value (PATH) was printed")
			}
		})
	}
	// Generated, not committed: a plan over the size cap.
	t.Run("oversized", func(t *testing.T) {
		plan := filepath.Join(dir, "big.yaml")
		big := "version: 1\ndescription: |\n" + strings.Repeat("  "+strings.Repeat("x", 78)+"\n", (orchestrator.MaxPlanSize/80)+10)
		if err := os.WriteFile(plan, []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		code, _, errOut := runCLI(t, "plan", "validate", plan)
		if code != exitInvalidPlan || !strings.Contains(errOut, "larger than") || time.Since(start) > 5*time.Second {
			t.Errorf("exit %d after %s: %s", code, time.Since(start), errOut)
		}
	})
	if len(runnable) > 0 && !t.Failed() {
		runHostile(t, runnable, marker)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a payload ran: the marker file exists")
	}
}

// expectation reads "# expect: ..." from the first line (after a BOM; the
// UTF-16 plan is recognised by its BOM).
func expectation(data []byte) string {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		// UTF-16: read the ASCII of the first line.
		var b []byte
		for _, c := range data[2:] {
			if c == '\n' {
				break
			}
			if c != 0 {
				b = append(b, c)
			}
		}
		data = b
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, _, _ := bytes.Cut(data, []byte("\n"))
	line, _, _ = bytes.Cut(line, []byte("\r"))
	s, _ := strings.CutPrefix(string(line), "# expect: ")
	return strings.TrimSpace(s)
}

// substitute fills the corpus placeholders (in UTF-16 plans too).
func substitute(data []byte, vars map[string]string) []byte {
	utf16 := bytes.HasPrefix(data, []byte{0xff, 0xfe})
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		from, to := []byte(k), []byte(vars[k])
		if utf16 {
			from, to = widen(from), widen(to)
		}
		data = bytes.ReplaceAll(data, from, to)
	}
	return data
}

func widen(b []byte) []byte {
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, c, 0)
	}
	return out
}

// rawTag is an unescaped HTML tag opener in Markdown.
var rawTag = regexp.MustCompile(`(^|[^\\])<[A-Za-z/!?][^\n]{0,20}`)

// runHostile runs the plans that pass validation against one sshd on
// loopback and the PostgreSQL their start stage creates: every hostile
// value reaches a host (argv, conf files, SQL) and stays data.
func runHostile(t *testing.T, plans []string, marker string) {
	if testing.Short() {
		t.Skip("real sshd and PostgreSQL (-short)")
	}
	pgbins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(pgbins) == 0 {
		testneeds.Missing(t, "PostgreSQL server programs not installed (run .ci/setup)")
	}
	sort.Strings(pgbins)
	pgbin := filepath.Dir(pgbins[len(pgbins)-1])
	lab := sshtest.StartT(t, 1, sshtest.WithFirstIP(40))
	u, err := user.Lookup(lab.User())
	if err != nil {
		t.Fatal(err)
	}
	ip := strings.Split(lab.Addr(0), ":")[0]
	cfg := filepath.Join(lab.Dir(), "ssh_config")
	if err := lab.WriteSSHConfig(cfg, "lab-", []string{"db1"}); err != nil {
		t.Fatal(err)
	}
	for i, f := range plans {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			prefix := fmt.Sprintf("benchrig-hostile-%d-%d", time.Now().UnixNano()%1e9, i)
			port := e2e.FreePort(t, ip)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			data = substitute(data, map[string]string{
				"@MARKER@": marker, "@SSHCONFIG@": cfg, "@KNOWNHOSTS@": lab.KnownHostsPath(),
				"@PORT@": strconv.Itoa(port), "@PREFIX@": prefix, "@PGBIN@": pgbin,
			})
			data = bytes.ReplaceAll(data, []byte("addr: 127.0.0.2"), []byte("addr: "+ip))
			dir := t.TempDir()
			plan := filepath.Join(dir, name+".yaml")
			if err := os.WriteFile(plan, data, 0o644); err != nil {
				t.Fatal(err)
			}
			asLogin := func(args ...string) *exec.Cmd {
				if os.Geteuid() == 0 {
					return exec.Command("runuser", append([]string{"-u", lab.User(), "--"}, args...)...)
				}
				return exec.Command(args[0], args[1:]...)
			}
			t.Cleanup(func() {
				for _, d := range []string{"db1", "--db1"} {
					_ = asLogin(pgbin+"/pg_ctl", "-D", filepath.Join(u.HomeDir, prefix, d, "pgdata"), "-m", "immediate", "stop").Run()
				}
				_ = asLogin("rm", "-rf", "--", filepath.Join(u.HomeDir, prefix)).Run()
			})
			code, out, errOut := runCLI(t, "run", "--runs-dir", filepath.Join(dir, "runs"), plan)
			if code != exitOK {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, e2e.LastN(out, 40), errOut)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("a payload ran:\n%s", e2e.LastN(out, 40))
			}
			// Plan values reach report.md escaped: no raw HTML tag.
			reports, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "report.md"))
			for _, r := range reports {
				md, _ := os.ReadFile(r)
				if m := rawTag.Find(md); m != nil {
					t.Errorf("%s holds raw HTML %q", r, m)
				}
			}
		})
	}
}
