package main

import (
	"testing"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
)

// TestE2EExitCodes holds the exit codes the end-to-end tests expect of the
// binary (package e2e, outside this package) equal to the table here.
func TestE2EExitCodes(t *testing.T) {
	for _, c := range []struct {
		name      string
		own, e2es int
	}{
		{"ok", exitOK, e2e.ExitOK},
		{"usage", exitUsage, e2e.ExitUsage},
		{"invalid plan", exitInvalidPlan, e2e.ExitInvalidPlan},
		{"transport", exitTransport, e2e.ExitTransport},
		{"remote", exitRemote, e2e.ExitRemote},
		{"check", exitCheck, e2e.ExitCheck},
		{"incomplete", exitIncomplete, e2e.ExitIncomplete},
		{"interrupted", exitInterrupted, e2e.ExitInterrupted},
	} {
		if c.own != c.e2es {
			t.Errorf("exit code %s: cmd/benchrig %d, e2e %d", c.name, c.own, c.e2es)
		}
	}
}
