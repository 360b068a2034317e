package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/rundir"
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

// planRun makes a run directory holding fixture's report.json and a plan
// copy with the given thresholds section.
func planRun(t *testing.T, fixture, thresholds string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "local-20261202-120000-abcd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := os.ReadFile(fixtures + fixture + "/report.json")
	if err != nil {
		t.Fatal(err)
	}
	planText, err := os.ReadFile("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"report.json": rep, rundir.PlanFile: append(planText, thresholds...)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := rundir.NewState(filepath.Join(dir, rundir.StateFile), filepath.Join(dir, rundir.PlanFile), "sum", rundir.StateOptions{}, nil, time.Now())
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCheckResultPlanThresholds: without flags, check-result checks the
// thresholds of the plan the run ran; with none, it says how to give some.
func TestCheckResultPlanThresholds(t *testing.T) {
	for _, tt := range []struct {
		name, thresholds string
		code             int
		want             string
	}{
		{"met", "thresholds:\n  min_tpmc: 45\n  latency:\n    - {op: newOrder, percentile: p95, max: 50ms}\n", exitOK, "meets every threshold"},
		{"missed", "thresholds:\n  min_tpmc: 48\n", exitCheck, "benchrig: check-result: tpmC 46.9 < 48 (min-tpmc)\n"},
		{"none", "", exitUsage, "no thresholds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := planRun(t, "runB", tt.thresholds)
			code, out, errOut := runCLI(t, "check-result", dir)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
	// Flags replace the plan's thresholds.
	dir := planRun(t, "runB", "thresholds:\n  min_tpmc: 48\n")
	if code, out, errOut := runCLI(t, "check-result", dir, "--min-tpmc", "1"); code != exitOK {
		t.Errorf("flags did not replace the plan's thresholds: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCheckResultPublished: check-result says how the run compares with
// its plan's published result (from the plan copy when report.json,
// written before, has none), whatever the thresholds say; --quiet keeps
// it quiet.
func TestCheckResultPublished(t *testing.T) {
	published := "published:\n  page: https://www.cockroachlabs.com/docs/v20.1/performance-benchmarking-with-tpc-c-10-warehouses\n  release: v19.2\n  year: 2019\n  tpmc: 50\n"
	dir := planRun(t, "runB", published+"thresholds:\n  min_tpmc: 45\n")
	code, out, errOut := runCLI(t, "check-result", dir)
	if code != exitOK || !strings.Contains(out, ": 46.9 tpmC = 93.8 % of the published 50 (measured on v19.2, 2019)\n") || !strings.Contains(out, "meets every threshold") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	dir = planRun(t, "runB", published+"thresholds:\n  min_tpmc: 48\n")
	if code, out, errOut := runCLI(t, "check-result", dir); code != exitCheck || !strings.Contains(out, "% of the published 50") {
		t.Errorf("a missed threshold: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if code, out, _ := runCLI(t, "check-result", "--quiet", dir, "--min-tpmc", "1"); code != exitOK || out != "" {
		t.Errorf("--quiet: exit %d, stdout %q", code, out)
	}
}
