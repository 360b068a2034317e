package tpcc

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleTpcc is this package's import path; the load profiles are under
// moduleTpcc/profile.
const moduleTpcc = "github.com/benchrig/benchrig/tpcc"

func isProfile(imp string) bool {
	return imp == moduleTpcc+"/profile" || strings.HasPrefix(imp, moduleTpcc+"/profile/")
}

// TestCoreImportsNoProfile keeps the driver's arrows pointing down: the
// core (this package, its internal tests, and every package of the module
// it reaches) imports neither the composition point (tpcc/profile) nor a
// profile. A profile is a LoadProfile value given to Run
// (RunConfig.ChooseProfile); what it needs of the core the core exports
// (Inputs, Tally, Session, RetryPolicy.Retry, SpecPacing).
func TestCoreImportsNoProfile(t *testing.T) {
	root, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{moduleTpcc: true}
	var walk func(imps []string, path []string)
	walk = func(imps []string, path []string) {
		for _, imp := range imps {
			if isProfile(imp) {
				t.Errorf("the core depends on a load profile: %s", strings.Join(append(path, imp), " -> "))
				continue
			}
			if seen[imp] || !strings.HasPrefix(imp, "github.com/benchrig/benchrig/") {
				continue
			}
			seen[imp] = true
			pkg, err := build.Import(imp, ".", 0)
			if err != nil {
				t.Fatal(err)
			}
			walk(pkg.Imports, append(path[:len(path):len(path)], imp))
		}
	}
	walk(append(root.Imports, root.TestImports...), []string{moduleTpcc})
	if len(seen) < 3 {
		t.Fatalf("walked %d packages from tpcc: the walk is broken", len(seen))
	}
}

// TestFilesStaySmall: no source file under tpcc/ grows past what one
// person can hold in mind (the orchestrator's cap, orchestrator/layout_test.go).
func TestFilesStaySmall(t *testing.T) {
	const maxLines = 600
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if lines := strings.Count(string(b), "\n"); lines > maxLines {
			t.Errorf("tpcc/%s: %d lines (cap %d); cut it by job", filepath.ToSlash(path), lines, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d source files under tpcc/: the walk is broken", n)
	}
}
