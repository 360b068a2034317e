package fidelity

import (
	"fmt"
	"regexp"
	"strings"
)

// Doc is one docs/fidelity/<release>.md.
type Doc struct {
	// Release is the file's name without .md, as the tags spell it
	// ("v20.1").
	Release string
	// Commits are the full commit hashes its Sources tables list.
	Commits []string
	// Rows are the rows of its conformance tables, in order.
	Rows []Row
}

// Row is one row of a conformance table: | id | behaviour | release's
// source | benchrig | pinned by |.
type Row struct {
	ID   string
	Line int // 1-based line in the file
	// Sources are the release column's citations.
	Sources []Cite
	// Anchors are the backquoted names of the benchrig column: Go
	// declarations as package.Name or package.Type.Method, or a
	// repository file (a plan, a preset).
	Anchors []string
	// Tests are the tests of the pinned-by column.
	Tests []string
}

// Cite is one `path:LINE @ commit` of a release column.
type Cite struct {
	Path   string
	Line   int
	Commit string
}

// header starts a conformance table; every table of the file whose
// first column is # and second is behaviour is one.
const header = "| # | behaviour |"

var (
	fullCommit = regexp.MustCompile("^\\| `([0-9a-f]{40})` \\|")
	citeRE     = regexp.MustCompile("`((?:pkg|crdb|src)/[^`:]+\\.(?:go|md)):([0-9]+)(?:-[0-9]+)?` @ ([0-9a-f]{10,40})")
	backquoted = regexp.MustCompile("`([^`]+)`")
	testRE     = regexp.MustCompile("^(Test|Fuzz|Benchmark)[A-Za-z0-9_]+(/.*)?$")
	anchorRE   = regexp.MustCompile(`^(?:[a-z][a-z0-9]*\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?|[a-z0-9_./-]+\.ya?ml)$`)
	idRE       = regexp.MustCompile(`^[A-Z]?[0-9]{1,3}$`)
	// notes are benchrig's own research notes, never a release's source.
	notes = regexp.MustCompile(`(?i)cockroach\.md|research/|§`)
)

// ParseDoc reads one conformance file. Every problem is returned, each
// naming name:line.
func ParseDoc(name, release string, data []byte) (Doc, []error) {
	d := Doc{Release: release}
	var errs []error
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	seen := map[string]int{}
	inTable := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		if m := fullCommit.FindStringSubmatch(line); m != nil {
			d.Commits = append(d.Commits, m[1])
		}
		switch {
		case strings.HasPrefix(line, header):
			inTable = true
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		case !inTable || strings.HasPrefix(line, "|---"):
			continue
		}
		cols := splitRow(line)
		if len(cols) != 5 {
			bad(n, "%d columns, want 5 (# | behaviour | release | benchrig | pinned by)", len(cols))
			continue
		}
		r := Row{ID: cols[0], Line: n}
		if !idRE.MatchString(r.ID) {
			bad(n, "row id %q: want a letter and a number, as S12", r.ID)
			continue
		}
		if prev, dup := seen[r.ID]; dup {
			bad(n, "row %s again (first at line %d)", r.ID, prev)
		}
		seen[r.ID] = n
		if notes.MatchString(cols[2]) {
			bad(n, "row %s cites benchrig's research notes: cite the release's own source or documentation", r.ID)
		}
		for _, m := range citeRE.FindAllStringSubmatch(cols[2], -1) {
			var line int
			fmt.Sscan(m[2], &line)
			r.Sources = append(r.Sources, Cite{Path: m[1], Line: line, Commit: m[3]})
		}
		if len(r.Sources) == 0 {
			bad(n, "row %s: no `path:LINE` @ commit of the release", r.ID)
		}
		for _, m := range backquoted.FindAllStringSubmatch(cols[3], -1) {
			if !anchorRE.MatchString(m[1]) {
				bad(n, "row %s: benchrig column quotes %q, which is no package.Name and no file: quote only the code's names there", r.ID, m[1])
				continue
			}
			r.Anchors = append(r.Anchors, m[1])
		}
		if len(r.Anchors) == 0 {
			bad(n, "row %s: benchrig column names no code", r.ID)
		}
		for _, m := range backquoted.FindAllStringSubmatch(cols[4], -1) {
			if testRE.MatchString(m[1]) {
				r.Tests = append(r.Tests, strings.SplitN(m[1], "/", 2)[0])
			}
		}
		if len(r.Tests) == 0 {
			bad(n, "row %s: no test pins it", r.ID)
		}
		d.Rows = append(d.Rows, r)
	}
	for _, r := range d.Rows {
		for _, c := range r.Sources {
			if !d.listed(c.Commit) {
				bad(r.Line, "row %s cites %s @ %s, a commit the Sources table does not list in full", r.ID, c.Path, c.Commit)
			}
		}
	}
	return d, errs
}

func (d Doc) listed(prefix string) bool {
	for _, c := range d.Commits {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// splitRow splits a table row into its cells, trimmed; a | inside
// backquotes or escaped as \| is part of its cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`':
			quoted = !quoted
			b.WriteByte(c)
		case c == '|' && !quoted:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}
