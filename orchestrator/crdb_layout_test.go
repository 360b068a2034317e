package orchestrator

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// crdbSwitch is the CockroachDB release switch: package crdb (Version,
// Build, Release). Which packages may import it directly, and why:
//
//   - crdb/... (crdb/fixtures: IMPORT and partitioning per release);
//   - tpcc/profile/workload, the load profile that is CockroachDB
//     workload's, which may ask crdb what differs per release;
//   - tpcc/command, the driver's command layer above the benchmark: it
//     turns --cockroach-version into the release's facts and gives the
//     benchmark crdb/fixtures' values (tpcc.CockroachFixtures);
//   - orchestrator/plan and orchestrator/stages, which ask the plan's
//     Release (plan.Release) instead of comparing versions;
//   - cmd/..., which only parses flags.
//
// Every other package of the module, in particular the benchmark (tpcc,
// tpcc/histogram) and the libraries below the orchestrator (internal/...,
// remote/..., crud), must not depend on it even indirectly.
const crdbSwitch = "crdb"

var crdbImporters = []string{"crdb/", "tpcc/profile/workload", "tpcc/command", "orchestrator/plan", "orchestrator/stages", "cmd/"}

func mayImportCrdb(rel string) bool {
	for _, a := range crdbImporters {
		if rel == strings.TrimSuffix(a, "/") || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a) {
			return true
		}
	}
	return false
}

// modulePackages maps every package of the module (relative path) to
// its non-test imports within the module.
func modulePackages(t *testing.T, root string) map[string][]string {
	const mod = "github.com/benchrig/benchrig/"
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files
		}
		rel, _ := filepath.Rel(root, path)
		var imps []string
		for _, imp := range pkg.Imports {
			if r, ours := strings.CutPrefix(imp, mod); ours {
				imps = append(imps, r)
			}
		}
		out[filepath.ToSlash(rel)] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReleaseSwitchImporters: no package imports the CockroachDB release
// switch but those crdbImporters lists, and no package outside them and
// outside the orchestrator, cmd and docs/measure (which sit above plan
// and stages)
// reaches it through another.
func TestReleaseSwitchImporters(t *testing.T) {
	pkgs := modulePackages(t, "..")
	if _, ok := pkgs[crdbSwitch]; !ok {
		t.Fatalf("no package %s in the module", crdbSwitch)
	}
	var reaches func(p string, seen map[string]bool) []string
	reaches = func(p string, seen map[string]bool) []string {
		for _, imp := range pkgs[p] {
			if imp == crdbSwitch {
				return []string{p, imp}
			}
			if !seen[imp] {
				seen[imp] = true
				if path := reaches(imp, seen); path != nil {
					return append([]string{p}, path...)
				}
			}
		}
		return nil
	}
	for p, imps := range pkgs {
		if slices.Contains(imps, crdbSwitch) && !mayImportCrdb(p) {
			t.Errorf("%s imports %s, the CockroachDB release switch: ask a crdb.Release through crdb/fixtures or the command layer (allowed: %v)", p, crdbSwitch, crdbImporters)
		}
		// The orchestrator and the measuring programs above it (docs/measure
		// drives whole runs, as cmd does) reach crdb through plan and stages.
		if mayImportCrdb(p) || p == "orchestrator" || strings.HasPrefix(p, "orchestrator/") || strings.HasPrefix(p, "docs/measure/") {
			continue
		}
		if path := reaches(p, map[string]bool{}); path != nil {
			t.Errorf("%s depends on the CockroachDB release switch: %s", p, strings.Join(path, " -> "))
		}
	}
}

// versionComparison finds a release compared outside crdb: a Version's
// fields, AtLeast, a Before of versions, or a version literal compared.
var versionComparison = regexp.MustCompile(`\.(Major|Minor)\b|\bAtLeast\(|\bBefore\(\s*(\d|crdb\.|Version)|[=!<>]=\s*"v\d+\.\d+|"v\d+\.\d+(\.\d+)?"\s*[=!<>]=|` +
	`\b[vV]ersion\s*[<>]=?\s*\S|\bMajor\s*[<>]=?\s*\d`)

// TestNoVersionComparisonOutsideCrdb: only crdb/... compares CockroachDB
// releases; everyone else asks a crdb.Release. Go sources (tests too)
// outside crdb/ are grepped.
func TestNoVersionComparisonOutsideCrdb(t *testing.T) {
	self, _ := filepath.Abs("crdb_layout_test.go")
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (n == "testdata" || strings.HasPrefix(n, ".") || path == filepath.Join("..", "crdb")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		if abs, _ := filepath.Abs(path); abs == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if m := versionComparison.FindString(code); m != "" {
				t.Errorf("%s:%d: %q compares a release outside crdb/: ask a crdb.Release", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// driverLeaves are the packages under tpcc/ that are no driver: pure data
// the plan shares with it (runspec: wait, profile names, the set-flag
// list, partitions, the run's checks) and the latency histograms.
var driverLeaves = []string{"tpcc/runspec", "tpcc/histogram"}

// TestPlanDoesNotImportDriver: orchestrator/plan depends on no package of
// the embedded driver (tpcc and everything under it but driverLeaves),
// directly or through another package: a plan is validated from the
// driver's leaves, and stages, not plan, build the driver's RunConfig.
func TestPlanDoesNotImportDriver(t *testing.T) {
	pkgs := modulePackages(t, "..")
	isDriver := func(p string) bool {
		return (p == "tpcc" || strings.HasPrefix(p, "tpcc/")) && !slices.Contains(driverLeaves, p)
	}
	for _, leaf := range driverLeaves {
		for _, imp := range pkgs[leaf] {
			if isDriver(imp) {
				t.Errorf("%s imports %s: a leaf of the driver must not import it", leaf, imp)
			}
		}
	}
	if _, ok := pkgs["orchestrator/plan"]; !ok {
		t.Fatal("no package orchestrator/plan in the module")
	}
	for _, path := range forbiddenPaths(pkgs, "orchestrator/plan", isDriver) {
		t.Errorf("orchestrator/plan depends on the driver: %s", strings.Join(path, " -> "))
	}
}

// forbiddenPaths are the import paths from p, directly or through other
// packages, that end in a package forbidden says p must not reach; a
// forbidden package is not walked further.
func forbiddenPaths(pkgs map[string][]string, p string, forbidden func(string) bool) [][]string {
	var out [][]string
	seen := map[string]bool{}
	var walk func(p string, path []string)
	walk = func(p string, path []string) {
		for _, imp := range pkgs[p] {
			if forbidden(imp) {
				out = append(out, append(path[:len(path):len(path)], imp))
				continue
			}
			if !seen[imp] {
				seen[imp] = true
				walk(imp, append(path[:len(path):len(path)], imp))
			}
		}
	}
	walk(p, []string{p})
	return out
}

// resultMayImport are the packages of the driver that tpcc/result (and
// its test support, tpcc/result/resulttest) may import: the leaves. The
// result files, ticks and live metrics are below the run: tpcc imports
// tpcc/result, never the reverse, and what a run leaves behind knows no
// CockroachDB release.
var resultMayImport = []string{"tpcc/histogram", "tpcc/runspec"}

// TestResultImportsPointDown: tpcc/result and the packages under it
// depend on neither tpcc nor crdb (nor crdb/fixtures), directly or
// through another package, and their tests import neither either.
func TestResultImportsPointDown(t *testing.T) {
	pkgs := modulePackages(t, "..")
	inResult := func(p string) bool { return p == "tpcc/result" || strings.HasPrefix(p, "tpcc/result/") }
	forbidden := func(p string) bool {
		if p == crdbSwitch || strings.HasPrefix(p, crdbSwitch+"/") {
			return true
		}
		return (p == "tpcc" || strings.HasPrefix(p, "tpcc/")) && !inResult(p) && !slices.Contains(resultMayImport, p)
	}
	if _, ok := pkgs["tpcc/result"]; !ok {
		t.Fatal("no package tpcc/result in the module")
	}
	const mod = "github.com/benchrig/benchrig/"
	for p := range pkgs {
		if !inResult(p) {
			continue
		}
		for _, path := range forbiddenPaths(pkgs, p, forbidden) {
			t.Errorf("%s: tpcc/result must not depend on the run or a release (allowed: %v)", strings.Join(path, " -> "), resultMayImport)
		}
		// The tests too: a test of the result that needs a run belongs
		// to tpcc.
		pkg, err := build.ImportDir(filepath.Join("..", filepath.FromSlash(p)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range append(pkg.TestImports, pkg.XTestImports...) {
			if r, ours := strings.CutPrefix(imp, mod); ours && forbidden(r) {
				t.Errorf("the tests of %s import %s: a test that needs a run stays in tpcc", p, r)
			}
		}
	}
}
