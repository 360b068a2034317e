package stages

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/probe"
)

// TestPreflightWritable runs the real preflight script on a directory it
// can write and on one nobody can (under /proc, read-only even for root),
// and judges the answers: the second host fails.
func TestPreflightWritable(t *testing.T) {
	run := func(path string) string {
		out, err := exec.Command("sh", "-c", preflightScript, "sh", path, "0", "", "0", "0").Output()
		if err != nil {
			t.Fatalf("preflight script on %s: %v", path, err)
		}
		return string(out)
	}
	good, bad := run(t.TempDir()), run("/proc/1")
	if !strings.Contains(good, "writable=1\n") || !strings.Contains(bad, "writable=0\n") {
		t.Fatalf("writable: temp dir says %q, /proc/1 says %q", probe.ParseKV(good)["writable"], probe.ParseKV(bad)["writable"])
	}
	check := &Check{Kind: "preflight", Hosts: []string{"ok", "ro"}, Arch: map[string]string{},
		MinFreeGB: 0, MaxClockOffset: time.Second, MinReadIOPS: 5000}
	now := time.Now()
	table, err := check.Judge([]ProbeResult{
		{Host: "ok", Probe: "preflight", Sent: now, Received: now, Stdout: good},
		{Host: "ro", Probe: "preflight", Sent: now, Received: now, Stdout: bad},
	})
	var pe *PreflightError
	if !errors.As(err, &pe) || pe.Failed != 1 {
		t.Fatalf("want one failed host, got %v\n%s", err, table)
	}
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "ro ") && !strings.Contains(l, "FAIL: cannot create files in the store path /proc/1") {
			t.Errorf("read-only host's verdict: %s", l)
		}
		if strings.HasPrefix(l, "ok ") && strings.Contains(l, "FAIL") {
			t.Errorf("writable host failed: %s", l)
		}
	}
}

// TestPreflightTable pins the table of fixed answers: a node receiving
// more connections than max_connections, a workload host whose hard
// open-files limit is below its run's need, one that passes, the disk
// benchmark's and the clock probes' figures as their result types give
// them.
func TestPreflightTable(t *testing.T) {
	check := &Check{Kind: "preflight", Hosts: []string{"db1", "load1", "load2"}, Arch: map[string]string{},
		MinFreeGB: 1, MaxClockOffset: 250 * time.Millisecond, MinReadIOPS: 5000, FioSize: "256M", FioRuntime: 10 * time.Second,
		Needs: map[string]HostNeed{
			"load1": {Terminals: 1000, Conns: 2000, OpenFiles: 2064},
			"load2": {Terminals: 1000, Conns: 2000, OpenFiles: 2064, Ulimit: 200500},
		},
		Conns: map[string]NodeConns{"db1": {Conns: 4000, Max: 100, Setting: "max_connections", Limit: "max_connections 100, PostgreSQL's default"}},
	}
	base := "os=Linux\narch=x86_64\nwritable=1\nfree_kb=104857600\nfstype=ext2/ext3\nrotational=0\n"
	sent := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	clock := func(host string, offset time.Duration) ProbeResult {
		at := sent.Add(time.Millisecond + offset) // the midpoint of a 2 ms round trip
		return ProbeResult{Host: host, Probe: "clock", Sent: sent, Received: sent.Add(2 * time.Millisecond),
			Stdout: fmt.Sprintf("%d.%09d\n", at.Unix(), at.Nanosecond())}
	}
	table, brief, err := check.JudgeBrief([]ProbeResult{
		{Host: "load2", Probe: "preflight", Stdout: base + "path=/home/b\nnofile_hard=1048576\nnofile_ok=1\nfio=skipped\n"},
		clock("load2", -3*time.Millisecond),
		{Host: "db1", Probe: "preflight", Stdout: base + "path=/data/db1\nnofile_hard=1048576\nport_26257=free\nport_8080=free\n" +
			"fio_read_kib=48000\nfio_read_iops=12000\nfio_write_kib=16000\nfio_write_iops=4000\n"},
		clock("db1", 1500*time.Microsecond),
		{Host: "load1", Probe: "preflight", Stdout: base + "path=/home/b\nnofile_hard=1024\nfio=skipped\n"},
		clock("load1", 0),
	})
	var pe *PreflightError
	if !errors.As(err, &pe) || pe.Failed != 2 || pe.Hosts != 3 {
		t.Errorf("want 2 of 3 hosts failed, got %v", err)
	}
	goldenfile.Check(t, "preflight/table.golden", []byte(table))
	// The console's brief: the rows not ok (load2 passes) and a summary.
	goldenfile.Check(t, "preflight/brief.golden", []byte(brief))
	if strings.Contains(brief, "load2") || !strings.Contains(brief, "1 of 3 hosts ok, 2 failed") {
		t.Errorf("brief:\n%s", brief)
	}
}

// TestPreflightOpenFilesReal reads this machine's limit with the real
// script: a need below the hard limit passes, one above fails and says to
// raise it.
func TestPreflightOpenFilesReal(t *testing.T) {
	out, err := exec.Command("sh", "-c", preflightScript, "sh", t.TempDir(), "0", "", "0", "0").Output()
	if err != nil {
		t.Fatal(err)
	}
	hard, ok := hostLimit(probe.ParseKV(string(out))["nofile_hard"])
	if !ok || hard < 64 {
		t.Fatalf("nofile_hard: %q", probe.ParseKV(string(out))["nofile_hard"])
	}
	if hard == math.MaxInt {
		t.Skip("no hard limit on open files here")
	}
	for _, tc := range []struct {
		need HostNeed
		fail string
	}{
		{HostNeed{Conns: hard - 64, OpenFiles: hard}, ""},
		{HostNeed{Conns: hard, OpenFiles: hard + 64}, "raise the hard limit to at least"},
	} {
		check := &Check{Kind: "preflight", Hosts: []string{"load1"}, MaxClockOffset: time.Second, Needs: map[string]HostNeed{"load1": tc.need}}
		table, err := check.Judge([]ProbeResult{{Host: "load1", Probe: "preflight", Stdout: string(out)}})
		if (err != nil) != (tc.fail != "") || !strings.Contains(table, tc.fail) {
			t.Errorf("need %d open files, hard limit %d: %v\n%s", tc.need.OpenFiles, hard, err, table)
		}
	}
}

// TestPreflightMarksWhatItCreates: preflight creates a missing work
// directory (to measure its file system) and marks it as benchrig's, so
// that install finds it marked and teardown --wipe may remove it; a
// directory that was there is left unmarked.
func TestPreflightMarksWhatItCreates(t *testing.T) {
	base := t.TempDir()
	made, existing := filepath.Join(base, "a", "work"), filepath.Join(base, "mine")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{made, existing} {
		if out, err := exec.Command("sh", "-c", preflightScript, "sh", path, "0", "", "0", "0", "benchrig plan x").CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(made, OwnedMarker)); err != nil || string(b) != "benchrig plan x\n" {
		t.Errorf("the directory preflight made: marker %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(existing, OwnedMarker)); err == nil {
		t.Error("preflight marked a directory it did not make")
	}
	if _, err := os.Stat(filepath.Join(base, "a", OwnedMarker)); err == nil {
		t.Error("preflight marked a parent it made on the way (wipe removes only the named directory)")
	}
}
