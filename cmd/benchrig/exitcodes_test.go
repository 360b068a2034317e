package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// TestReadmeExitCodes holds README.md's exit-code table (its "### Exit
// codes" section) to the codes here: the same codes, none missing, none
// extra.
func TestReadmeExitCodes(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Exit codes\n")
	if !ok {
		t.Fatal(`README.md has no "### Exit codes" section`)
	}
	if i := strings.Index(sec, "\n#"); i >= 0 {
		sec = sec[:i]
	}
	var readme []int
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(sec, -1) {
		n, _ := strconv.Atoi(m[1])
		readme = append(readme, n)
	}
	own := []int{exitOK, exitInternal, exitUsage, exitInvalidPlan, exitTransport, exitRemote, exitCheck, exitIncomplete, exitInterrupted}
	slices.Sort(readme)
	slices.Sort(own)
	if !slices.Equal(readme, own) {
		t.Errorf("README.md's exit codes %v, exitcodes.go's %v", readme, own)
	}
}
