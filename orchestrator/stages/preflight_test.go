package stages

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
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
		t.Fatalf("writable: temp dir says %q, /proc/1 says %q", parseKV(good)["writable"], parseKV(bad)["writable"])
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
