package report

import (
	"html"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/russross/blackfriday/v2"

	"github.com/benchrig/benchrig/crud"
	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/tpcc/result"
)

// hostileValues are strings a plan (settings, description, paths), a host
// (errors, versions) or a run's files can carry into report.md.
var hostileValues = []string{
	"<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "`code` ``x``", "a | b | c", "line1\nline2\r\n# heading",
	"[link](javascript:alert(1))", "![img](http://x/y.png)", "**bold** _em_ ~~del~~", "&lt;script&gt; &amp;", "http://example.com/x",
	"mailto:a@b.c", "www.example.com", "- item", "1. item", "> quote", "    indented", "\\`", "x\\|y", "<!-- c -->", "<?php ?>",
	"\u202egnp.exe", "zero\u200bwidth", "nul\x00byte", "\xff\xfe", "pg_ctl", "a_b _c_ d_", "<", "0 < 1 <= 2", "{#id}", "<https://x>",
}

// hostileReport is a report whose every string holds v.
func hostileReport(v string, withCRUD bool) *Report {
	f := 1.5
	r := &Report{
		Plan: v, Flavor: v, Description: v, Benchrig: v, Database: v, Created: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC),
		Topology: Topology{Nodes: []Node{{Name: v, Addr: v, Rack: 0}}, Workload: []Workload{{Name: v, Partitions: []int{0}}}, Racks: 1},
		Settings: []Setting{{Name: v, Value: v}}, License: v,
		TPCC:   Params{Warehouses: 1, Ramp: v, Duration: v},
		Stages: []StageTiming{{Name: v, Status: v, Seconds: 1, Hosts: 1}},
		Result: &Result{Warehouses: 1, Elapsed: 60, TpmC: 10, Efficiency: 50, Judged: true, Failures: []string{v},
			Ops: []Op{{Name: v, Count: 1}}, Files: []string{v},
			Hosts: []HostRun{{Host: v, File: v, Failures: []string{v}, Profile: v}, {Host: v, Error: v}}},
		Audit:       []HostAudit{{Host: v, Checks: []result.AuditCheck{{ID: v, Verdict: v, Observed: &f, Min: &f, Unit: v, Detail: v}}}},
		StartSkew:   &Skew{PerHost: map[string]float64{v: 1}, Spread: 1},
		Clock:       []ClockOffset{{Host: v}},
		Problems:    []string{v},
		Rounds:      []RoundResult{{Label: v, Flag: v, Result: &Result{Failures: []string{v}}}, {Label: v, Result: &Result{Pass: true, Judged: true}}},
		Points:      []Point{{Flag: v, Value: 1, Runs: 1}},
		Disks:       []Disk{{Host: v, Path: v, Status: "measured"}, {Host: v, Path: v, Status: v}},
		HostMetrics: []HostMetric{{Round: v, Host: v, Role: v, File: v}},
		Warnings:    []string{v},
		Published:   &Published{PublishedView: plan.PublishedView{Page: v, Release: v, Note: v, TpmC: 1}, Run: &PublishedRun{Of: v, TpmC: 1}},
	}
	if withCRUD {
		r.CRUD = []CRUDRow{{Host: v, Columns: []crud.Column{{Name: v, Key: v, Value: 1}}}}
	}
	return r
}

// TestHostileReportGolden: a report whose every string is hostile, in a
// golden file (reviewed: every value escaped, every table row with its
// columns).
func TestHostileReportGolden(t *testing.T) {
	var b strings.Builder
	for _, v := range hostileValues[:12] {
		b.WriteString(markdown(hostileReport(v, false), []string{v + ".svg"}, []string{v + "-cpu.svg"}))
		b.WriteString("\n----\n\n")
	}
	b.WriteString(markdown(hostileReport(hostileValues[2], true), nil, nil))
	goldenfile.Check(t, "hostile-report.md.golden", []byte(b.String()))
}

// TestHostileReportRenders renders the report through a real Markdown
// renderer (blackfriday, with tables and autolinks): with any hostile
// value in every string, the HTML has exactly the elements of the same
// report with a plain value, and every table row keeps its cells.
func TestHostileReportRenders(t *testing.T) {
	want := elements(render(markdown(hostileReport("plain", false), []string{"plain.svg"}, nil)))
	wantCRUD := elements(render(markdown(hostileReport("plain", true), nil, nil)))
	for _, v := range hostileValues {
		if got := elements(render(markdown(hostileReport(v, false), []string{"plain.svg"}, nil))); !slices.Equal(got, want) {
			t.Errorf("%q: elements\n%v\nwant\n%v", v, got, want)
		}
		if got := elements(render(markdown(hostileReport(v, true), nil, nil))); !slices.Equal(got, wantCRUD) {
			t.Errorf("%q (crud): elements differ", v)
		}
	}
}

// render is report.md as HTML: GFM-like extensions, no smartypants (so
// the text is exactly what the Markdown says).
func render(md string) string {
	r := blackfriday.NewHTMLRenderer(blackfriday.HTMLRendererParameters{Flags: blackfriday.UseXHTML})
	return string(blackfriday.Run([]byte(md), blackfriday.WithExtensions(blackfriday.CommonExtensions), blackfriday.WithRenderer(r)))
}

var tag = regexp.MustCompile(`<(/?[a-zA-Z][a-zA-Z0-9]*)`)

// elements lists the HTML elements (opening and closing tags) in order.
func elements(h string) []string {
	var out []string
	for _, m := range tag.FindAllStringSubmatch(h, -1) {
		out = append(out, m[1])
	}
	return out
}

// plainText is what a reader sees of s: the HTML's text, unescaped.
func plainText(h string) string {
	return strings.TrimSpace(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(h, "")))
}

// FuzzEscape: whatever s holds, Escape(s) has no line break, no
// unescaped backtick or '|', and nothing that opens an HTML tag; rendered
// in a paragraph, a list item and a table cell it adds no element, keeps
// the table's two cells, and reads as s (line breaks and tabs as spaces,
// control and invisible characters as U+FFFD).
func FuzzEscape(f *testing.F) {
	for _, v := range hostileValues {
		f.Add(v)
	}
	para := elements(render("x\n"))
	item := elements(render("- x\n"))
	cell := elements(render("| a | b |\n|---|---|\n| x | y |\n"))
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1000 {
			t.Skip()
		}
		e := Escape(s)
		if strings.ContainsAny(e, "\n\r") {
			t.Fatalf("Escape(%q) = %q holds a line break", s, e)
		}
		for i := 0; i < len(e); i++ {
			switch e[i] {
			case '`', '~':
				if !escaped(e, i) {
					t.Fatalf("Escape(%q) = %q: unescaped %c at %d", s, e, e[i], i)
				}
			case '|', '<', '>':
				t.Fatalf("Escape(%q) = %q: %c at %d (an entity in every renderer)", s, e, e[i], i)
			case '&':
				if !slices.ContainsFunc(slices.Collect(maps.Values(entities)), func(ent string) bool { return strings.HasPrefix(e[i:], ent) }) {
					t.Fatalf("Escape(%q) = %q: '&' at %d opens no entity of Escape's", s, e, i)
				}
			}
		}
		want := expectText(s)
		for _, c := range []struct {
			md   string
			want []string
		}{{e + "\n", para}, {"- " + e + "\n", item}, {"| a | b |\n|---|---|\n| " + e + " | y |\n", cell}} {
			h := render(c.md)
			if got := elements(h); !slices.Equal(got, c.want) && !(want == "" && len(got) < len(c.want)) {
				t.Fatalf("Escape(%q) = %q: %q renders as %s", s, e, c.md, h)
			}
		}
		if got := plainText(render(e + "\n")); want != "" && got != want {
			t.Fatalf("Escape(%q) = %q reads as %q, want %q", s, e, got, want)
		}
	})
}

// escaped says whether e[i] follows an odd number of backslashes.
func escaped(e string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && e[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// expectText is what the reader should see of s.
func expectText(s string) string {
	var b strings.Builder
	for _, r := range s { // an invalid byte is U+FFFD
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteRune(' ')
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}
