package fidelity

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Check checks every docs/fidelity/<release>.md under root against the
// tags of the repository and its tests. It returns every problem, sorted,
// each naming the file and line to fix; none when the tables and the
// code agree.
func Check(root string) []error {
	files, err := filepath.Glob(filepath.Join(root, "docs", "fidelity", "v*.md"))
	if err != nil {
		return []error{err}
	}
	if len(files) == 0 {
		return []error{fmt.Errorf("%s: no docs/fidelity/v*.md", root)}
	}
	var errs []error
	docs := map[string]Doc{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		release := strings.TrimSuffix(filepath.Base(f), ".md")
		d, e := ParseDoc("docs/fidelity/"+filepath.Base(f), release, data)
		errs = append(errs, e...)
		docs[release] = d
	}
	tags, e := Scan(root)
	errs = append(errs, e...)
	tests, e := repoTests(root)
	errs = append(errs, e...)
	uses, e := Uses(root)
	errs = append(errs, e...)
	cites, e := CommentCites(root)
	errs = append(errs, e...)
	var listed []string
	for _, d := range docs {
		listed = append(listed, d.Commits...)
	}
	for _, c := range cites {
		if !slices.ContainsFunc(listed, func(full string) bool { return strings.HasPrefix(full, c.Commit) }) {
			errs = append(errs, fmt.Errorf("%s:%d: cites a source at %s, a commit no docs/fidelity Sources table lists (cite one that is, or list it)", c.File, c.Line, c.Commit))
		}
	}

	byRow := map[string][]Tag{}
	for _, t := range tags {
		d, ok := docs[t.Release]
		if !ok {
			errs = append(errs, fmt.Errorf("%s names release %s, which has no docs/fidelity/%s.md", t, t.Release, t.Release))
			continue
		}
		if !slices.ContainsFunc(d.Rows, func(r Row) bool { return r.ID == t.ID }) {
			errs = append(errs, fmt.Errorf("%s names no row of docs/fidelity/%s.md (a row was removed or renumbered: remove or fix the tag)", t, t.Release))
			continue
		}
		k := t.Release + "/" + t.ID
		byRow[k] = append(byRow[k], t)
	}
	for _, release := range sortedKeys(docs) {
		d := docs[release]
		where := "docs/fidelity/" + release + ".md"
		for _, r := range d.Rows {
			got := byRow[release+"/"+r.ID]
			if len(got) == 0 {
				errs = append(errs, fmt.Errorf("%s:%d: row %s: no code carries fidelity:%s/%s (its code disappeared, or lost its tag when it moved)", where, r.Line, r.ID, release, r.ID))
			}
			tagged := map[string]bool{}
			for _, t := range got {
				tagged[t.Anchor] = true
				if !slices.Contains(r.Anchors, t.Anchor) {
					errs = append(errs, fmt.Errorf("%s:%d: row %s does not name %s, where %s is (the row's code moved: name it in the benchrig column)", where, r.Line, r.ID, t.Anchor, t))
				}
			}
			onlyTests := 0
			for _, a := range r.Anchors {
				if !tagged[a] {
					errs = append(errs, fmt.Errorf("%s:%d: row %s names %s, which carries no fidelity:%s/%s (the code moved, was renamed or disappeared)", where, r.Line, r.ID, a, release, r.ID))
				}
				if tagged[a] && !strings.HasSuffix(a, ".yaml") && !strings.HasSuffix(a, ".yml") && !uses[a[strings.LastIndex(a, ".")+1:]] {
					onlyTests++
				}
			}
			if onlyTests > 0 && onlyTests == len(r.Anchors) {
				errs = append(errs, fmt.Errorf("%s:%d: row %s is anchored only on code no program code uses (only tests call %s): anchor it on the code that runs", where, r.Line, r.ID, strings.Join(r.Anchors, ", ")))
			}
			for _, tn := range r.Tests {
				if !tests[tn] {
					errs = append(errs, fmt.Errorf("%s:%d: row %s: no test %s in the repository", where, r.Line, r.ID, tn))
				}
			}
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]+)\(`)

// repoTests are the test, fuzz and benchmark functions of every _test.go
// under root.
func repoTests(root string) (map[string]bool, []error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
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
		return out, []error{err}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
