package orchestrator

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportsPointDown keeps the cut by job: every package under
// orchestrator/ imports only the orchestrator packages it is allowed to
// (never the facade, never cmd), and no file of it grows past the size
// one person can hold in mind.
func TestImportsPointDown(t *testing.T) {
	const mod = "github.com/benchrig/benchrig/"
	allowed := map[string][]string{
		"plan":   {},
		"stages": {"plan", "probe", "share"},
		"runner": {"plan", "stages"},
		"rundir": {"plan", "stages", "runner"},
		"probe":  {},
		"report": {"plan", "stages", "rundir", "probe", "hostmetrics"},
		// Readers of report.json, beside the run path.
		"compare":     {"report"},
		"gate":        {"report", "compare", "plan"},
		"openmetrics": {"report"},
		"hostmetrics": {},
		// Host side of the install's distribution (benchrig serve-file);
		// stages takes the path it serves from it.
		"share": {},
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		// A package not listed is a leaf beside plan: it may use the
		// plan, nothing else of the orchestrator.
		ok, known := allowed[d.Name()]
		if !known {
			ok = []string{"plan"}
		}
		pkg, err := build.ImportDir(d.Name(), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pkg.Imports {
			rest, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			if strings.HasPrefix(rest, "cmd/") || rest == "orchestrator" {
				t.Errorf("orchestrator/%s imports %s: arrows point down only", d.Name(), rest)
			}
			if sub, isOrch := strings.CutPrefix(rest, "orchestrator/"); isOrch && !slices.Contains(ok, sub) {
				t.Errorf("orchestrator/%s imports orchestrator/%s (allowed: %v)", d.Name(), sub, ok)
			}
		}
	}
	files, _ := filepath.Glob("*/*.go")
	top, _ := filepath.Glob("*.go")
	for _, f := range append(files, top...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > 600 {
			t.Errorf("%s: %d lines; cut it by job", f, n)
		}
	}
}
