package report

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// renderers are the Markdown renderers report.md must read as text in:
// CommonMark's reference implementation (as GitHub, with raw HTML let
// through: --unsafe, so that what the text would do is seen) and
// Python-Markdown (MkDocs and most static-site tools), which honours no
// backslash before '<' or '&'. Both are Debian packages (.ci/setup).
var renderers = []struct{ name, bin string }{
	{"cmark", "cmark"},
	{"Python-Markdown", "markdown_py"},
}

// renderWith runs a real renderer over md; without it the test skips,
// except under CI, which installs both.
func renderWith(t *testing.T, bin, md string) string {
	t.Helper()
	path, err := exec.LookPath(bin)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed (run .ci/setup)", bin)
		}
		t.Skipf("%s is not installed (run .ci/setup)", bin)
	}
	args := []string{path}
	if bin == "cmark" {
		args = append(args, "--unsafe")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = strings.NewReader(md)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v: %s", bin, err, errb.String())
	}
	return out.String()
}

// hostileMarkup is markup each renderer would act on if it reached it:
// tags (with attributes that fetch or run), autolinks, entities, and the
// backslash forms only CommonMark honours.
var hostileMarkup = append(slices.Clone(hostileValues),
	`\<img src=x onerror=alert(1)>`, `<img src="http://attacker.example/p.png">`, `<script src=//x></script>`,
	`<a href="javascript:alert(1)">x</a>`, `&#60;img src=x&#62;`, `<div markdown="1">*x*</div>`,
	`<http://attacker.example/>`, `<a@b.example>`, `[x]: http://attacker.example/`, `pipelined <img src=x onerror=alert(1)>`)

// TestHostileReportRealRenderers renders report.md, every plan- and
// host-derived string set to each hostile value, through cmark and
// Python-Markdown: the HTML has exactly the elements of the same report
// with a plain value (no element or attribute from the text), and no tag
// the values name (img, script, a, div) at all.
func TestHostileReportRealRenderers(t *testing.T) {
	for _, r := range renderers {
		t.Run(r.name, func(t *testing.T) {
			// One document per value, rendered in one call per renderer
			// (a process per value would be slow): separated by rules,
			// compared per part.
			var plain, hostile strings.Builder
			for _, v := range hostileMarkup {
				plain.WriteString(markdown(hostileReport("plain", false), []string{"plain.svg"}, nil) + "\n----\n\n")
				hostile.WriteString(markdown(hostileReport(v, false), []string{"plain.svg"}, nil) + "\n----\n\n")
			}
			want := strings.Split(renderWith(t, r.bin, plain.String()), "<hr")
			got := strings.Split(renderWith(t, r.bin, hostile.String()), "<hr")
			if len(got) != len(want) {
				t.Fatalf("%d parts, want %d (a value ended the document's structure)", len(got), len(want))
			}
			for i, v := range hostileMarkup {
				if ge, we := elements(got[i]), elements(want[i]); !slices.Equal(ge, we) {
					t.Errorf("%q: elements\n%v\nwant\n%v", v, ge, we)
				}
				for _, bad := range []string{"<img", "<script", "<a href", "<div"} {
					if strings.Contains(got[i], bad) && !strings.Contains(want[i], bad) {
						t.Errorf("%q: the HTML holds %s", v, bad)
					}
				}
			}
		})
	}
}
