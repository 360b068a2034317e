package stages

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadRunScriptKeepsOutput runs the script through a real sh: the
// URLs come from the addrs file as words, workload's output goes to the
// job's log and to the kept file, and workload's exit status is the
// script's (a failed or killed run still reads as one).
func TestWorkloadRunScriptKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	addrs := filepath.Join(dir, "addrs")
	if err := os.WriteFile(addrs, []byte("postgres://a:1/?x=*\npostgres://b:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "workload1.workload.out")
	for _, tc := range []struct {
		name string
		keep string
		code int
	}{{"kept, exit 0", out, 0}, {"kept, exit 3", out, 3}, {"not kept", "", 5}} {
		t.Run(tc.name, func(t *testing.T) {
			fake := `echo "args:$*"; echo "` + "_elapsed_" + `" 1>&2; exit ` + string(rune('0'+tc.code))
			cmd := exec.Command("sh", "-c", workloadRunScript, "sh", "", addrs, tc.keep, "sh", "-c", fake, "workload")
			cmd.Dir = dir
			got, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d (%s)", code, tc.code, got)
			}
			want := "args:postgres://a:1/?x=* postgres://b:2\n_elapsed_\n"
			if string(got) != want {
				t.Fatalf("job output %q, want %q", got, want)
			}
			if tc.keep == "" {
				return
			}
			kept, err := os.ReadFile(tc.keep)
			if err != nil || string(kept) != want {
				t.Fatalf("kept %q (%v), want %q", kept, err, want)
			}
			if st, _ := os.ReadFile(tc.keep + ".exit"); strings.TrimSpace(string(st)) != string(rune('0'+tc.code)) {
				t.Errorf("exit file %q", st)
			}
		})
	}
}
