package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportCommand(t *testing.T) {
	code, out, errOut := runCLI(t, "export", fixtures+"runA")
	if code != exitOK || !strings.Contains(out, `benchrig_tpcc_tpmc{plan="local",run="runA",round="repeat 1"} 50.1`) || !strings.HasSuffix(out, "# EOF\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	f := filepath.Join(t.TempDir(), "m.txt")
	if code, _, _ := runCLI(t, "export", fixtures+"runA", "-o", f, "--format", "openmetrics"); code != exitOK {
		t.Fatalf("export -o: exit %d", code)
	}
	if data, _ := os.ReadFile(f); string(data) != out {
		t.Error("export -o wrote something else than standard output")
	}
	if code, _, _ := runCLI(t, "export", "--format", "csv", fixtures+"runA"); code != exitUsage {
		t.Errorf("--format csv: exit %d", code)
	}
}
