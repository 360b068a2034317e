package fidelity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// base is a small repository whose one table agrees with its code.
var base = map[string]string{
	"docs/fidelity/v9.9.md": "# v9.9\n\n| commit | what |\n|---|---|\n" +
		"| `0123456789abcdef0123456789abcdef01234567` | release-9.9 |\n\n" +
		header + " release | benchrig | pinned by |\n|---|---|---|---|---|\n" +
		"| S1 | imports | `pkg/a/import.go:12` @ 0123456789ab | writes it in `rig.PlanImport` | `TestImport` |\n" +
		"| S2 | waits | `pkg/b/wait.go:7` @ 0123456789ab | `rig.waiter.Wait`, the plan `plans/p.yaml` | `TestWait/settle` |\n",
	"rig/import.go":   "package rig\n\n// PlanImport imports.\n//\n// fidelity:v9.9/S1\nfunc PlanImport() {}\n",
	"rig/wait.go":     "package rig\n\ntype waiter struct{}\n\nfunc (w *waiter) Wait() {\n\t// the release's settle criterion (fidelity:v9.9/S2)\n}\n",
	"rig/rig_test.go": "package rig\n\nimport \"testing\"\n\nfunc TestImport(t *testing.T) {}\n\nfunc TestWait(t *testing.T) {}\n",
	"plans/p.yaml":    "# the recipe's plan (fidelity:v9.9/S2)\nversion: 1\n",
	"rig/main.go":     "package rig\n\nfunc main() {\n\tPlanImport()\n\t(&waiter{}).Wait()\n}\n",
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit map[string]string // file -> new content ("" removes it)
		want []string          // substrings of the problems, in order
	}{
		{name: "agrees"},
		{name: "code disappeared",
			edit: map[string]string{"rig/import.go": "package rig\n"},
			want: []string{"row S1 names rig.PlanImport, which carries no fidelity:v9.9/S1", "row S1: no code carries fidelity:v9.9/S1"}},
		{name: "code moved to another function, tag with it",
			edit: map[string]string{"rig/import.go": "package rig\n\n// fidelity:v9.9/S1\nfunc importAll() {}\n"},
			want: []string{"row S1 does not name rig.importAll", "row S1 names rig.PlanImport, which carries no"}},
		{name: "code moved to another file, tag with it",
			edit: map[string]string{"rig/import.go": "", "rig/other.go": "package rig\n\n// fidelity:v9.9/S1\nfunc PlanImport() {}\n"}},
		{name: "tag names no row",
			edit: map[string]string{"rig/extra.go": "package rig\n\n// fidelity:v9.9/S3\nvar x = 1\n"},
			want: []string{"rig/extra.go:3: fidelity:v9.9/S3 names no row"}},
		{name: "tag beside no declaration",
			edit: map[string]string{"rig/float.go": "// fidelity:v9.9/S1\npackage rig\n"},
			want: []string{"rig/float.go:1: fidelity:v9.9/S1: beside no declaration"}},
		{name: "test tags do not count",
			edit: map[string]string{"rig/import.go": "package rig\n\nfunc PlanImport() {}\n", "rig/x_test.go": "package rig\n\n// fidelity:v9.9/S1\nfunc helper() {}\n"},
			want: []string{"carries no fidelity:v9.9/S1", "no code carries"}},
		{name: "research notes",
			edit: map[string]string{"docs/fidelity/v9.9.md": strings.Replace(base["docs/fidelity/v9.9.md"], "`pkg/a/import.go:12` @ 0123456789ab", "cockroach.md §3", 1)},
			want: []string{"row S1 cites benchrig's research notes", "row S1: no `path:LINE` @ commit"}},
		{name: "commit not listed",
			edit: map[string]string{"docs/fidelity/v9.9.md": strings.Replace(base["docs/fidelity/v9.9.md"], "@ 0123456789ab |", "@ 0123456789ff |", 1)},
			want: []string{"a commit the Sources table does not list"}},
		{name: "no such test",
			edit: map[string]string{"rig/rig_test.go": "package rig\n\nimport \"testing\"\n\nfunc TestImport(t *testing.T) {}\n"},
			want: []string{"row S2: no test TestWait"}},
		{name: "prose quoted in the benchrig column",
			edit: map[string]string{"docs/fidelity/v9.9.md": strings.Replace(base["docs/fidelity/v9.9.md"], "writes it in", "writes `--flag` in", 1)},
			want: []string{"benchrig column quotes \"--flag\""}},
		{name: "only tests call the code",
			edit: map[string]string{"rig/main.go": "package rig\n\nfunc main() {\n\t(&waiter{}).Wait()\n}\n",
				"rig/rig_test.go": base["rig/rig_test.go"] + "\nfunc TestCall(t *testing.T) { PlanImport() }\n"},
			want: []string{"row S1 is anchored only on code no program code uses (only tests call rig.PlanImport)"}},
		{name: "yaml cites an unlisted commit",
			edit: map[string]string{"plans/p.yaml": "# the recipe (docs src/current/x.md at\n# cockroachdb/docs 82b41d40) (fidelity:v9.9/S2)\nversion: 1\n"},
			want: []string{"plans/p.yaml:1: cites a source at 82b41d40, a commit no docs/fidelity Sources table lists"}},
		{name: "yaml cites a listed commit",
			edit: map[string]string{"plans/p.yaml": "# the recipe (docs at\n# cockroachdb/docs 0123456789ab) (fidelity:v9.9/S2)\nversion: 1\n"}},
		{name: "go cites an unlisted commit",
			edit: map[string]string{"rig/import.go": "package rig\n\n// PlanImport imports (pkg/a/import.go:12 at 0123456789ff).\n//\n// fidelity:v9.9/S1\nfunc PlanImport() {}\n"},
			want: []string{"rig/import.go:3: cites a source at 0123456789ff"}},
		{name: "yaml tag lost",
			edit: map[string]string{"plans/p.yaml": "version: 1\n"},
			want: []string{"row S2 names plans/p.yaml, which carries no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			for k, v := range base {
				files[k] = v
			}
			for k, v := range tc.edit {
				files[k] = v
			}
			for k, v := range files {
				if v == "" {
					continue
				}
				p := filepath.Join(root, k)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			errs := Check(root)
			if len(errs) != len(tc.want) {
				t.Fatalf("%d problems, want %d: %v", len(errs), len(tc.want), errs)
			}
			for i, w := range tc.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}

// TestRepository is the check of this repository's tables: it fails when
// a row's code moves to another declaration, is renamed or disappears,
// when a tag names no row, or a row cites no commit of the release.
func TestRepository(t *testing.T) {
	for _, err := range Check("../..") {
		t.Error(err)
	}
}

func FuzzParseDoc(f *testing.F) {
	f.Add([]byte(base["docs/fidelity/v9.9.md"]))
	f.Add([]byte(header + "\n| S1 | `a|b` \\| | x | y | z |\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _ := ParseDoc("x.md", "v1.0", data)
		for _, r := range d.Rows {
			if r.ID == "" {
				t.Fatal("row without id")
			}
		}
	})
}
