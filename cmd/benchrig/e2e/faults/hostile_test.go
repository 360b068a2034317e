package faults_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/orchestrator/report"
)

// TestHostileHosts is the hostile-hosts suite: one real run on the
// loopback lab, then load2 made hostile by replacing what it leaves
// behind for collect, one way per channel, each followed by `benchrig
// resume --from collect` (collect and merge again, a few seconds each).
// Every case must end with load2 named as refused in the report and
// exit 40 (incomplete), load1's files and figures intact, nothing
// written outside the run directory, and no host markup in the report.
// Last, load2's honest files again: the run completes with exit 0.
func TestHostileHosts(t *testing.T) {
	t.Parallel()
	e := e2e.New(t, "3s", e2e.PlanOpts{Stages: "install, start, init, configure, import, run, collect, merge"})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("the honest run exited %d:\n%s", code, e2e.LastN(e.Logs.String(), 30))
	}
	runDir := e.RunDir()
	host2 := filepath.Join(e.Home, e.Prefix, "load2")
	hist := filepath.Join(host2, "workload2.histogram.ndjson")
	ticks := filepath.Join(host2, "workload2.ticks.jsonl")
	honest := map[string][]byte{}
	for _, f := range []string{hist, ticks} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		honest[f] = b
	}
	load1 := e2e.ReadReport(t, runDir).Result.Hosts
	restore := func() {
		for f, b := range honest {
			os.Remove(f)
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	outside := filepath.Join(filepath.Dir(runDir), "outside")
	// resume runs collect and merge again with load2 made hostile by
	// hostile, and checks what every case must hold; it returns the
	// run's output and report.
	resume := func(t *testing.T, why string, hostile func()) (string, *report.Report) {
		t.Helper()
		restore()
		hostile()
		e.Logs.Reset()
		start := time.Now()
		e.Start("resume", "--from", "collect", runDir)
		code := e.Wait(3 * time.Minute)
		out := e.Logs.String()
		if code != e2e.ExitIncomplete {
			t.Fatalf("resume with a hostile load2 exited %d, want %d:\n%s", code, e2e.ExitIncomplete, e2e.LastN(out, 30))
		}
		t.Logf("refused in %v: %s", time.Since(start).Round(time.Second), e2e.FirstLineWith(out, "refused"))
		r := e2e.ReadReport(t, runDir)
		if r.Result == nil || len(r.Result.Incomplete) != 1 || !r.Result.Incomplete[0].Refused || r.Result.Incomplete[0].Host != "load2" ||
			!strings.Contains(r.Result.Incomplete[0].Reason, why) {
			t.Fatalf("report.json does not name load2 as refused for %q: %+v", why, r.Result)
		}
		// The other host's figures stand, merged alone.
		if r.Result.TpmC <= 0 || len(r.Result.Files) != 1 || !strings.Contains(r.Result.Files[0], "load1") || r.Result.Pass {
			t.Errorf("merged result: tpmC %.1f, files %v, pass %v: want load1's alone, failing", r.Result.TpmC, r.Result.Files, r.Result.Pass)
		}
		if len(load1) > 0 && (len(r.Result.Hosts) == 0 || r.Result.Hosts[0].TpmC != load1[0].TpmC) {
			t.Errorf("load1's own figures changed: %+v, were %+v", r.Result.Hosts, load1)
		}
		md, _ := os.ReadFile(filepath.Join(runDir, "report.md"))
		if !strings.Contains(string(md), "INCOMPLETE") || !strings.Contains(string(md), "load2 refused") {
			t.Errorf("report.md does not name load2 as refused:\n%s", e2e.LastN(string(md), 40))
		}
		// Nothing beside the run directory; nothing of load2's under
		// results/load2 but its honest, untouched samples and records.
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(runDir), "*")); len(m) != 1 {
			t.Errorf("files beside the run directory: %v", m)
		}
		if _, err := os.Lstat(filepath.Join(runDir, "results", "load2", "workload2.histogram.ndjson")); err == nil && !strings.Contains(why, "malformed") {
			t.Error("the refused histogram file is in the run directory")
		}
		return out, r
	}

	t.Run("1 files: symlink and FIFO", func(t *testing.T) {
		resume(t, "symbolic link", func() {
			os.Remove(hist)
			e2e.Must(t, os.Symlink(outside, hist))
			os.Remove(ticks)
			e2e.Must(t, syscall.Mkfifo(ticks, 0o644)) // an open would wait forever
		})
		if _, err := os.Lstat(outside); err == nil {
			t.Error("a file was written where load2's symlink points")
		}
	})
	t.Run("2 bounds: 65 MiB histogram", func(t *testing.T) {
		resume(t, "more than the 67108864", func() {
			f, err := os.OpenFile(hist, os.O_WRONLY|os.O_APPEND, 0)
			e2e.Must(t, err)
			e2e.Must(t, f.Truncate(65<<20)) // sparse: offered, not written
			f.Close()
		})
	})
	t.Run("4 strict: another file's content", func(t *testing.T) {
		resume(t, "malformed", func() {
			b, err := os.ReadFile(filepath.Join(host2, "workload2.result.json"))
			e2e.Must(t, err)
			e2e.Must(t, os.WriteFile(hist, bytes.ReplaceAll(b, []byte("\n"), nil), 0o644))
		})
	})
	t.Run("5 one host cannot spoil the others: garbage", func(t *testing.T) {
		// Checked by resume in every case; here the plainest garbage.
		resume(t, "malformed", func() { e2e.Must(t, os.WriteFile(hist, []byte("\x00\xff{garbage\n"), 0o644)) })
	})
	t.Run("6 markup stays text", func(t *testing.T) {
		payload := `<img src=x onerror=alert(1)>`
		resume(t, "malformed", func() {
			line := strings.Replace(strings.SplitAfter(string(honest[hist]), "\n")[0], `"Name":`, `"`+payload+`":1,"Name":`, 1)
			e2e.Must(t, os.WriteFile(hist, []byte(line), 0o644))
		})
		for _, f := range []string{"report.md", "report.json", "tpmc.svg", "latency.svg", "results/merged.result.json"} {
			b, _ := os.ReadFile(filepath.Join(runDir, f))
			// The words may stay, as text; the tag must not.
			if bytes.Contains(b, []byte("<img")) || bytes.Contains(b, []byte(`\u003cimg`)) {
				t.Errorf("%s carries load2's markup", f)
			}
		}
		om, _ := e.RunBenchrig("export", runDir)
		if strings.Contains(om, "<img") {
			t.Error("export carries load2's markup")
		}
	})

	restore()
	e.Logs.Reset()
	e.Start("resume", "--from", "collect", runDir)
	if code := e.Wait(3 * time.Minute); code != 0 {
		t.Fatalf("resume with load2's honest files again exited %d:\n%s", code, e2e.LastN(e.Logs.String(), 30))
	}
	if m, _ := filepath.Glob(filepath.Join(runDir, "results", "load2", "*.refused")); len(m) > 0 {
		t.Errorf("refusal records outlived the honest files: %v", m)
	}
	e.CheckResult(runDir)
}
