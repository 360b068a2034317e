package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote"
)

// runCLI runs benchrig in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"benchrig"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPlanCommands(t *testing.T) {
	// Validation resolves the shipped plans' licence reference.
	t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"validate shipped", []string{"plan", "validate", "../../plans/tpcc-10.yaml", "../../plans/tpcc-100k.yaml", "../../plans/local.yaml"}, exitOK, "tpcc-100k.yaml: ok"},
		{"validate invalid", []string{"plan", "validate", "../../orchestrator/plan/testdata/invalid/many-problems.yaml"}, exitInvalidPlan, "many-problems.yaml:18:9: tpcc.ramp"},
		{"validate nothing", []string{"plan", "validate"}, exitUsage, "name at least one plan"},
		{"show", []string{"plan", "show", "../../plans/tpcc-100k.yaml"}, exitOK, "workload5  workload  ubuntu@workload5  -          -     -      -     benchrig  4,9,14,19,24"},
		{"missing file", []string{"plan", "show", "no-such-plan.yaml"}, exitUsage, "no such file"},
		{"missing file: run", []string{"run", "no-such-plan.yaml"}, exitUsage, "no such file"},
		{"missing file: dry run", []string{"run", "--dry-run", "no-such-plan.yaml"}, exitUsage, "no such file"},
		{"missing file: validate", []string{"plan", "validate", "no-such-plan.yaml"}, exitUsage, "could not be read"},
		{"missing and invalid: validate", []string{"plan", "validate", "no-such-plan.yaml", "../../orchestrator/plan/testdata/invalid/many-problems.yaml"}, exitInvalidPlan, "1 of 2 plans invalid"},
		{"dry run", []string{"run", "--dry-run", "../../plans/tpcc-100k.yaml"}, exitOK, "enterprise.license = ****;"},
		{"dry run only", []string{"run", "--dry-run", "--only", "swap", "../../plans/tpcc-100k.yaml"}, exitOK, "crdb81 | sh -c '<crdb-start>' sh benchrig/cockroach.pid /usr/local/bin/cockroach start"},
		{"dry run bad stage", []string{"run", "--dry-run", "--from", "strat", "../../plans/tpcc-100k.yaml"}, exitUsage, "unknown stage"},
		{"dry run invalid plan", []string{"run", "--dry-run", "../../orchestrator/plan/testdata/invalid/stage-order.yaml"}, exitInvalidPlan, "stage-order.yaml:19:17"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out+errOut, tt.contains) {
				t.Errorf("output lacks %q:\nstdout: %.2000s\nstderr: %s", tt.contains, out, errOut)
			}
		})
	}
}

// TestUsageExitCodes: bad flags and unknown commands exit 2, at any level.
func TestUsageExitCodes(t *testing.T) {
	for _, args := range [][]string{
		{"nosuch"},
		{"run", "--bogus", "x.yaml"},
		{"tpcc", "nosuch"},
		{"tpcc", "run", "--warehouses", "x"},
		{"plan", "show", "--nope"},
	} {
		if code, _, _ := runCLI(t, args...); code != exitUsage {
			t.Errorf("benchrig %v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestInterruptedExitCode: after a signal, any failure exits 130, even
// one that looks like a transport error (the cancelled session).
func TestInterruptedExitCode(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := &remote.TransportError{Host: "h", Op: "session", Err: context.Canceled}
	if code := exitCode(ctx, err); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if code := exitCode(context.Background(), err); code != exitTransport {
		t.Errorf("without a signal: exit %d, want %d", code, exitTransport)
	}
}

// TestLookWithoutLicense: plan show and run --dry-run work without the
// licence's variable (they name the reference, never read it); validate
// and a real run still refuse the plan, exit 3, naming the variable.
func TestLookWithoutLicense(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "")
	os.Unsetenv("COCKROACH_LICENSE")
	for _, tt := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"plan", "show", "../../plans/tpcc-10k.yaml"}, exitOK, "key from env:COCKROACH_LICENSE (not read here"},
		{[]string{"run", "--dry-run", "../../plans/tpcc-10k.yaml"}, exitOK, "enterprise.license = ****;"},
		{[]string{"plan", "validate", "../../plans/tpcc-10k.yaml"}, exitInvalidPlan, "license.key.env: environment variable COCKROACH_LICENSE is not set"},
		{[]string{"run", "--runs-dir", t.TempDir(), "../../plans/tpcc-10k.yaml"}, exitInvalidPlan, "license.key.env: environment variable COCKROACH_LICENSE is not set"},
	} {
		code, out, errOut := runCLI(t, tt.args...)
		if code != tt.code || !strings.Contains(out+errOut, tt.contains) {
			t.Errorf("benchrig %v: exit %d (want %d), output lacks %q?\nstdout: %.1500s\nstderr: %s", tt.args, code, tt.code, tt.contains, out, errOut)
		}
	}
}
