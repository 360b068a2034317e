package faults_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// markup is what a hostile string carries: elements that fetch or run.
const markup = `<img src=http://127.0.0.1:9/x onerror=alert(1)>`

// TestHostileChannels is the hostile-hosts suite's second pass (issue
// 40): one honest run on the loopback lab, then load2 (or the plan's own
// text) hostile one channel at a time, each followed by a resume from the
// stage that reads it, with load2's honest behaviour restored after.
// load2's sshd (127.0.0.6) runs commands with a PATH whose `date` can be
// made to hang (the clock probe); load2's ./benchrig can be swapped for a
// script that floods its output or never exits after its run.
func TestHostileChannels(t *testing.T) {
	bin, err := os.MkdirTemp("", "benchrig-hostile-bin-")
	e2e.Must(t, err)
	t.Cleanup(func() { os.RemoveAll(bin) })
	e2e.Must(t, os.Chmod(bin, 0o755))
	hang := filepath.Join(bin, "hang-clock")
	t.Cleanup(func() { os.Remove(hang) }) // releases a held date
	e2e.Must(t, os.WriteFile(filepath.Join(bin, "date"), []byte(`#!/bin/sh
if [ -e `+hang+` ] && [ "$1" = "+%s.%N" ]; then
	printf '\033]52;c;cHduZWQ=\007\033[2J\342\200\256 `+markup+`\n' >&2
	while [ -e `+hang+` ]; do sleep 1; done
fi
exec /bin/date "$@"
`), 0o755))
	e := e2e.New(t, "2s", e2e.PlanOpts{
		Stages: "install, start, init, configure, import, run, collect, merge",
		Top: `description: "` + markup + ` <script>alert(2)</script>"
published:
  page: https://example.com/published
  release: v19.2
  tpmc: 100
  note: "` + markup + `"
`,
		SSHD: []string{"Match LocalAddress 127.0.0.6", "SetEnv PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin"},
	})
	e.Start("run", "--runs-dir", e.Runs, "--start-lead", "1s", e.Plan)
	if code := e.Wait(5 * time.Minute); code != 0 {
		t.Fatalf("the honest run exited %d:\n%s", code, e2e.LastN(e.Logs.String(), 30))
	}
	runDir := e.RunDir()
	host2 := filepath.Join(e.Home, e.Prefix, "load2")
	hist := filepath.Join(host2, "workload2.histogram.ndjson")
	res := filepath.Join(host2, "workload2.result.json")
	load2Bin := filepath.Join(host2, "benchrig")
	honest := map[string][]byte{}
	for _, f := range []string{hist, res} {
		b, err := os.ReadFile(f)
		e2e.Must(t, err)
		honest[f] = b
	}
	fi, err := os.Stat(hist)
	e2e.Must(t, err)
	owner := fi.Sys().(*syscall.Stat_t) // the lab user: its run writes the files again
	restore := func() {
		for f, b := range honest {
			os.Remove(f)
			e2e.Must(t, os.WriteFile(f, b, 0o644))
			e2e.Must(t, os.Chown(f, int(owner.Uid), int(owner.Gid)))
		}
	}
	resume := func(t *testing.T, from string, limit time.Duration) (int, string, time.Duration) {
		t.Helper()
		e.Logs.Reset()
		start := time.Now()
		e.Start("resume", "--from", from, runDir)
		code := e.Wait(limit)
		return code, e.Logs.String(), time.Since(start)
	}
	// swapBinary puts script in place of load2's benchrig (the real one
	// beside it, benchrig.real) until the returned function restores it.
	swapBinary := func(t *testing.T, script string) func() {
		t.Helper()
		real := load2Bin + ".real"
		e2e.Must(t, os.Rename(load2Bin, real))
		e2e.Must(t, os.WriteFile(load2Bin, []byte("#!/bin/sh\nreal=\"$(dirname \"$0\")/benchrig.real\"\n"+script), 0o755))
		return func() {
			os.Remove(load2Bin)
			e2e.Must(t, os.Rename(real, load2Bin))
		}
	}
	// incompleteLoad2 checks that report.json names load2 incomplete for
	// why, and (refused) that load1 was merged alone.
	incompleteLoad2 := func(t *testing.T, why string, refused bool) {
		t.Helper()
		r := e2e.ReadReport(t, runDir)
		if r.Result == nil || len(r.Result.Incomplete) != 1 || r.Result.Incomplete[0].Host != "load2" || !strings.Contains(r.Result.Incomplete[0].Reason, why) {
			t.Fatalf("report.json does not name load2 incomplete for %q: %+v", why, r.Result)
		}
		if refused && (r.Result.TpmC <= 0 || len(r.Result.Files) != 1 || !strings.Contains(r.Result.Files[0], "load1")) {
			t.Errorf("merged result: tpmC %.1f, files %v: want load1's alone", r.Result.TpmC, r.Result.Files)
		}
	}

	t.Run("markup: plan text and host strings read as text in cmark and Python-Markdown", func(t *testing.T) {
		restore()
		var r map[string]any
		e2e.Must(t, json.Unmarshal(honest[res], &r))
		r["failures"] = []string{markup}
		if checks, ok := r["audit"].([]any); ok && len(checks) > 0 {
			c := checks[0].(map[string]any)
			c["id"], c["unit"], c["detail"] = markup, markup, markup
		}
		b, _ := json.Marshal(r)
		e2e.Must(t, os.WriteFile(res, b, 0o644))
		e2e.Must(t, os.Chown(res, int(owner.Uid), int(owner.Gid)))
		if code, out, _ := resume(t, "collect", 3*time.Minute); code != e2e.ExitOK && code != e2e.ExitCheck {
			t.Fatalf("resume exited %d:\n%s", code, tail(out))
		}
		md, err := os.ReadFile(filepath.Join(runDir, "report.md"))
		e2e.Must(t, err)
		checkRendered(t, md)
		// The profile, one of a known set: another string refuses the host.
		r["profile"] = "pipelined " + markup
		b, _ = json.Marshal(r)
		e2e.Must(t, os.WriteFile(res, b, 0o644))
		e2e.Must(t, os.Chown(res, int(owner.Uid), int(owner.Gid)))
		if code, out, _ := resume(t, "collect", 3*time.Minute); code != e2e.ExitIncomplete {
			t.Fatalf("resume with load2's profile hostile exited %d, want %d:\n%s", code, e2e.ExitIncomplete, tail(out))
		}
		incompleteLoad2(t, "not a load profile", true)
		md, _ = os.ReadFile(filepath.Join(runDir, "report.md"))
		checkRendered(t, md)
	})

	t.Run("version: a database version with escapes and markup", func(t *testing.T) {
		restore()
		log := filepath.Join(runDir, "logs", "install", "db1.log")
		b, err := os.ReadFile(log)
		e2e.Must(t, err)
		lines := strings.Split(string(b), "\n")
		found := false
		for i, l := range lines {
			if strings.HasPrefix(l, "== ") && strings.Contains(l, " check PostgreSQL programs: ") && i+1 < len(lines) {
				lines[i+1] = "pg_ctl (PostgreSQL) 16\x1b]8;;http://127.0.0.1:9/\a\x1b[2J\u202e " + markup
				found = true
			}
		}
		if !found {
			t.Fatal("db1's install log has no version line")
		}
		e2e.Must(t, os.WriteFile(log, []byte(strings.Join(lines, "\n")), 0o644))
		if code, out, _ := resume(t, "collect", 3*time.Minute); code != e2e.ExitOK && code != e2e.ExitCheck {
			t.Fatalf("resume exited %d:\n%s", code, tail(out))
		}
		om, err := e.RunBenchrig("export", runDir)
		if err != nil {
			t.Fatalf("export: %v\n%s", err, om)
		}
		if strings.ContainsAny(om, "\x1b\a\u202e") || strings.Contains(om, "<img") {
			t.Errorf("export carries the host's version raw:\n%s", e2e.FirstLineWith(om, "database_version"))
		}
		rj, _ := os.ReadFile(filepath.Join(runDir, "report.json"))
		if bytes.Contains(rj, []byte(`\u001b`)) || bytes.Contains(rj, []byte(`\u003cimg`)) {
			t.Error("report.json carries the host's version raw")
		}
	})

	t.Run("tick: one New-Order tick 200 days after load2's last", func(t *testing.T) {
		restore()
		ticks, err := histogram.Decode(bytes.NewReader(honest[hist]))
		e2e.Must(t, err)
		var last time.Time
		for _, tk := range ticks {
			if tk.Now.After(last) {
				last = tk.Now
			}
		}
		h := histogram.NewHistogram()
		_ = h.RecordValue(int64(time.Millisecond))
		var b bytes.Buffer
		e2e.Must(t, histogram.NewEncoder(&b).Encode(histogram.Tick{Name: histogram.NewOrder, Hist: histogram.Export(h), Elapsed: time.Second, Now: last.Add(200 * 24 * time.Hour)}))
		e2e.Must(t, os.WriteFile(hist, append(append([]byte(nil), honest[hist]...), b.Bytes()...), 0o644))
		e2e.Must(t, os.Chown(hist, int(owner.Uid), int(owner.Gid)))
		if code, out, _ := resume(t, "collect", 3*time.Minute); code != e2e.ExitIncomplete {
			t.Fatalf("resume exited %d, want %d:\n%s", code, e2e.ExitIncomplete, tail(out))
		}
		incompleteLoad2(t, "ticks spanning", true)
		for f, most := range map[string]int64{"report.json": 4 << 20, "results/merged.result.json": 4 << 20, "tpmc.svg": 1 << 20} {
			if fi, err := os.Stat(filepath.Join(runDir, f)); err != nil || fi.Size() > most {
				t.Errorf("%s: %v, more than %d bytes", f, err, most)
			}
		}
	})

	t.Run("stream: load2 prints 40 MiB of lines before its run", func(t *testing.T) {
		restore()
		defer swapBinary(t, `if [ "$1 $2" = "tpcc run" ]; then head -c 41943040 /dev/zero | tr '\0' x | fold -w 1000; echo; fi
exec "$real" "$@"
`)()
		before := fileSize(filepath.Join(runDir, "output.log"))
		code, out, took := resume(t, "run", 4*time.Minute)
		if code != e2e.ExitOK && code != e2e.ExitCheck {
			t.Fatalf("resume exited %d:\n%s", code, tail(out))
		}
		grew := fileSize(filepath.Join(runDir, "output.log")) - before
		t.Logf("output.log grew %d bytes in %v", grew, took.Round(time.Second))
		if grew > 12<<20 {
			t.Errorf("output.log grew %d bytes: load2's 40 MiB were written", grew)
		}
		if n := strings.Count(out, "of this output dropped here"); n != 1 {
			t.Errorf("the console says %d times that load2's output was cut, want once", n)
		}
	})

	t.Run("probe: load2 accepts the clock probe and never answers", func(t *testing.T) {
		restore()
		e2e.Must(t, os.WriteFile(hang, nil, 0o644))
		defer os.Remove(hang)
		code, out, took := resume(t, "run", 2*time.Minute)
		if code == 0 || !strings.Contains(out, "load2") || !strings.Contains(out, "timed out") {
			t.Fatalf("resume with load2's clock held exited %d after %v, want a failure naming load2's timeout:\n%s", code, took, tail(out))
		}
		t.Logf("exit %d after %v: %s", code, took.Round(time.Second), e2e.FirstLineWith(out, "timed out"))
		if took > time.Minute {
			t.Errorf("the held probe held the run stage %v", took)
		}
		// status --json quotes load2's error (its stderr) as text.
		st, err := e.RunBenchrig("status", "--json", runDir)
		if err != nil {
			t.Fatalf("status --json: %v\n%s", err, st)
		}
		var v struct {
			Stages []struct {
				Hosts []struct{ Host, Error string }
			}
		}
		e2e.Must(t, json.Unmarshal([]byte(st), &v))
		seen := false
		for _, s := range v.Stages {
			for _, h := range s.Hosts {
				if strings.ContainsAny(h.Error, "\x1b\a\u202e") {
					t.Errorf("status --json passes %s's error raw: %q", h.Host, h.Error)
				}
				seen = seen || h.Host == "load2" && strings.Contains(h.Error, `\x1b`)
			}
		}
		if !seen {
			t.Errorf("status --json does not quote load2's stderr:\n%s", st)
		}
	})

	t.Run("job: load2's run writes its files and never exits", func(t *testing.T) {
		restore()
		defer swapBinary(t, `if [ "$1 $2" = "tpcc run" ]; then "$real" "$@"; trap '' TERM; while :; do sleep 1; done; fi
exec "$real" "$@"
`)()
		code, out, took := resume(t, "run", 3*time.Minute)
		if code != e2e.ExitIncomplete {
			t.Fatalf("resume exited %d after %v, want %d:\n%s", code, took, e2e.ExitIncomplete, tail(out))
		}
		t.Logf("stopped after %v: %s", took.Round(time.Second), e2e.FirstLineWith(out, "ran past"))
		incompleteLoad2(t, "ran past its end", false)
		// ramp 2 s + duration 2 s + grace 20.4 s, the stop's 10 s, and the
		// stages around it (83 s at a load average of 30).
		if took > 150*time.Second {
			t.Errorf("the job that never ends held the run %v", took)
		}
	})

	restore()
	if code, out, _ := resume(t, "run", 3*time.Minute); code != e2e.ExitOK {
		t.Fatalf("resume with load2 honest again exited %d:\n%s", code, tail(out))
	}
}

// checkRendered renders report.md through cmark (CommonMark, raw HTML let
// through) and Python-Markdown: neither HTML holds an img or script
// element (the text's markup shows as text).
func checkRendered(t *testing.T, md []byte) {
	t.Helper()
	for _, r := range [][]string{{"cmark", "--unsafe"}, {"markdown_py"}} {
		path, err := exec.LookPath(r[0])
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed (run .ci/setup)", r[0])
			}
			t.Logf("%s is not installed: not rendered", r[0])
			continue
		}
		cmd := exec.Command(path, r[1:]...)
		cmd.Stdin = bytes.NewReader(md)
		html, err := cmd.Output()
		e2e.Must(t, err)
		for _, el := range []string{"<img src=http", "<script"} {
			if bytes.Contains(html, []byte(el)) {
				t.Errorf("%s renders report.md with %s...:\n%s", r[0], el, e2e.FirstLineWith(string(html), el))
			}
		}
	}
}

// tail is the end of a run's console, each line cut at 300 bytes (a
// flooding host's lines would fill the test's log).
func tail(out string) string {
	lines := strings.Split(e2e.LastN(out, 30), "\n")
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "..."
		}
	}
	return strings.Join(lines, "\n")
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
