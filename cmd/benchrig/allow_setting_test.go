package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowSetting: a setting that runs a command is refused (exit 3,
// file:line:col) unless the command line allows it by name, on plan
// validate and on run --dry-run, which then lists it as data.
func TestAllowSetting(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "p.yaml")
	text := `version: 1
name: allow
flavor: postgres
nodes:
  - {name: db1, addr: 127.0.0.2}
binaries:
  database: {host: /usr/lib/postgresql/15/bin}
settings:
  cluster:
    archive_command: "cp %p /archive/%f"
tpcc: {warehouses: 1}
stages: [configure]
`
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "plan", "validate", plan)
	if code != exitInvalidPlan || !strings.Contains(errOut, plan+":10:5: settings.cluster: archive_command is not taken from a plan") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	code, _, errOut = runCLI(t, "run", "--dry-run", plan)
	if code != exitInvalidPlan || !strings.Contains(errOut, "--allow-setting archive_command") {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	if code, out, errOut := runCLI(t, "plan", "validate", "--allow-setting", "archive_command", plan); code != 0 {
		t.Fatalf("allowed: exit %d: %s%s", code, out, errOut)
	}
	if code, out, errOut := runCLI(t, "plan", "validate", plan, "--allow-setting=archive_command", "--allow-setting", "other"); code != 0 {
		t.Fatalf("allowed after the argument: exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut := runCLI(t, "run", "--dry-run", "--allow-setting", "archive_command", plan)
	if code != 0 || !strings.Contains(out, "archive_command") {
		t.Fatalf("allowed dry run: exit %d: %s%s", code, out, errOut)
	}
}
