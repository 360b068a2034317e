package stages_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// conformanceHeader is the column header of a conformance table in
// docs/fidelity/<release>.md: behaviour, what the release's workload
// does (pkg/...go:LINE at a commit), what benchrig does (file:line), the
// test that pins it.
const conformanceHeader = "| # | behaviour | workload (release-20.1) | benchrig | pinned by |"

var (
	fullCommit   = regexp.MustCompile("^\\| `([0-9a-f]{40})` \\|")
	sourceCite   = regexp.MustCompile("`((?:pkg|crdb)/[^`]+\\.go):([0-9]+)(?:-[0-9]+)?` @ ([0-9a-f]{10,40})")
	benchrigCite = regexp.MustCompile("`([a-z][^`]*\\.go):([0-9]+)`")
	testCite     = regexp.MustCompile("`(Test[A-Za-z0-9_]+)(?:/[^`]*)?`")
	testFunc     = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
)

// TestConformanceTable checks the form of docs/fidelity/v20.1.md's
// conformance tables: at least 40 rows; each cites the release's source
// as pkg/...go:LINE (or cockroach-go's crdb/...go:LINE, which workload's
// retries run through) at a commit the Sources table lists in full, a
// benchrig file:line that exists, and tests that exist in the repository.
// It does not judge the facts: the tests each row names do.
func TestConformanceTable(t *testing.T) {
	root := "../.."
	doc, err := os.ReadFile(filepath.Join(root, "docs/fidelity/v20.1.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := repoTests(t, root)
	commits := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if m := fullCommit.FindStringSubmatch(line); m != nil {
			commits[m[1]] = true
		}
	}
	if len(commits) == 0 {
		t.Fatal("no commits listed in full")
	}
	rows, inTable := 0, false
	for n, line := range strings.Split(string(doc), "\n") {
		switch {
		case line == conformanceHeader:
			inTable = true
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		case !inTable || strings.HasPrefix(line, "|---"):
			continue
		}
		rows++
		cols := strings.Split(line, " | ")
		if len(cols) != 5 {
			t.Errorf("line %d: %d columns, want 5", n+1, len(cols))
			continue
		}
		srcs := sourceCite.FindAllStringSubmatch(cols[2], -1)
		if len(srcs) == 0 {
			t.Errorf("line %d: no `pkg/...go:LINE` @ commit", n+1)
		}
		for _, s := range srcs {
			found := false
			for c := range commits {
				found = found || strings.HasPrefix(c, s[3])
			}
			if !found {
				t.Errorf("line %d: commit %s is not in the Sources table", n+1, s[3])
			}
		}
		ours := benchrigCite.FindAllStringSubmatch(cols[3], -1)
		if len(ours) == 0 {
			t.Errorf("line %d: no benchrig file:line", n+1)
		}
		for _, o := range ours {
			if lines := countLines(t, filepath.Join(root, o[1])); lines < atoi(o[2]) {
				t.Errorf("line %d: %s:%s, but the file has %d lines", n+1, o[1], o[2], lines)
			}
		}
		named := testCite.FindAllStringSubmatch(cols[4], -1)
		if len(named) == 0 {
			t.Errorf("line %d: no test", n+1)
		}
		for _, m := range named {
			if !tests[m[1]] {
				t.Errorf("line %d: no test %s in the repository", n+1, m[1])
			}
		}
	}
	if rows < 40 {
		t.Errorf("%d rows, want at least 40", rows)
	}
}

// repoTests are the Test functions of every _test.go under root.
func repoTests(t *testing.T, root string) map[string]bool {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range testFunc.FindAllSubmatch(data, -1) {
				out[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func countLines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return 0
	}
	n := 0
	for s := bufio.NewScanner(bytes.NewReader(data)); s.Scan(); {
		n++
	}
	return n
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
