package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fixtures = "../../orchestrator/compare/testdata/"

func TestCompareCommand(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "cdf.svg")
	code, out, errOut := runCLI(t, "compare", "--svg", svg, fixtures+"runA", fixtures+"runB")
	if code != exitOK || !strings.Contains(out, "-6.20% (p=0.029 n=4+4)") || !strings.Contains(out, "~ (p=") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "<svg") {
		t.Errorf("no CDF plot: %v", err)
	}
	code, out, _ = runCLI(t, "compare", "--json", fixtures+"runA", fixtures+"runB")
	var v struct{ Schema string }
	if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v.Schema != "benchrig.compare/v1" {
		t.Errorf("--json: exit %d, schema %q", code, v.Schema)
	}
	for _, args := range [][]string{
		{"compare", fixtures + "runA"},
		{"compare", "--format", "yaml", fixtures + "runA", fixtures + "runB"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}
