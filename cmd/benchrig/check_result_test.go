package main

import (
	"strings"
	"testing"
)

func TestCheckResultCommand(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string // in stdout (exit 0) or stderr
	}{
		{"passes", []string{"check-result", "--min-tpmc", "45", "--max-p95", "newOrder=50ms", "--max-p99", "*=200ms", "--max-errors", "5", fixtures + "runB"}, exitOK, "runB meets every threshold"},
		{"misses", []string{"check-result", "--min-tpmc", "48", "--max-p95", "newOrder=50ms", fixtures + "runB"}, exitCheck, "benchrig: check-result: tpmC 46.9 < 48 (min-tpmc)\n"},
		{"regression", []string{"check-result", "--max-regression", "5%", "--against", fixtures + "runA", fixtures + "runB"}, exitCheck, "6.20% below runA's"},
		{"regression without baseline", []string{"check-result", "--max-regression", "5%", fixtures + "runB"}, exitUsage, "needs --against"},
		{"bad limit", []string{"check-result", "--max-p95", "newOrder", fixtures + "runB"}, exitUsage, "TRANSACTION=DURATION"},
		{"no run", []string{"check-result", "--min-tpmc", "1"}, exitUsage, "name one run directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			got := out
			if code != exitOK {
				got = errOut
				if strings.Count(errOut, "\n") != 1 {
					t.Errorf("reason is not one line: %q", errOut)
				}
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

func TestCheckResultVerbose(t *testing.T) {
	code, out, errOut := runCLI(t, "check-result", fixtures+"runB", "--min-tpmc", "45", "--verbose")
	if code != exitOK || !strings.Contains(errOut, "check-result: ok: tpmC 46.9 >= 45 (min-tpmc)\n") || !strings.Contains(out, "meets every threshold") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}
