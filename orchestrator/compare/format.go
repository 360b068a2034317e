package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/benchrig/benchrig/orchestrator/report"
)

// Formats lists the output formats of Write.
var Formats = []string{"text", "markdown", "json"}

// Write prints the comparison in one of Formats.
func Write(w io.Writer, c *Comparison, format string) error {
	switch format {
	case "text", "":
		return writeText(w, c)
	case "markdown":
		return writeMarkdown(w, c)
	case "json":
		data, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	return fmt.Errorf("compare: unknown format %q (text, markdown or json)", format)
}

// label is a metric's row name: "tpmC", "efficiency %", "newOrder p95 ms".
func (m Metric) label() string {
	switch m.Name {
	case "tpmc":
		return "tpmC"
	case "efficiency_percent":
		return "efficiency %"
	}
	name := strings.ReplaceAll(strings.TrimSuffix(m.Name, "_ms"), "_", " ")
	if m.Unit == "ms" {
		name += " ms"
	}
	return m.Operation + " " + name
}

// cell is a run's value: the median and, with repeats, ± its spread
// (counts: the range of the repeats).
func (v Value) cell(unit string) string {
	if v.N == 0 {
		return "–"
	}
	if unit == "count" {
		s := strconv.FormatFloat(v.Median, 'f', -1, 64)
		if v.N > 1 {
			lo, hi := slices.Min(v.Samples), slices.Max(v.Samples)
			s += fmt.Sprintf(" (%g–%g)", lo, hi)
		}
		return s
	}
	s := num(v.Median)
	if v.N > 1 {
		s += fmt.Sprintf(" ±%.0f%%", v.Spread)
	}
	return s
}

// cell is a delta as benchstat prints it: "+5.21% (p=0.029 n=4+4)", or
// "~ (p=0.343 n=4+4)" when not significant; the plain change without
// repeats. No change at all (0 -> 0, or equal medians) is "~", as
// benchstat says it, not a signed "+0.00%" that reads as a measured rise.
func (d Delta) cell() string {
	pct := "–"
	switch {
	case d.Percent != nil && *d.Percent == 0:
		pct = "~"
	case d.Percent != nil:
		pct = fmt.Sprintf("%+.2f%%", *d.Percent)
	}
	if !d.Tested {
		if d.N1 > 1 || d.N2 > 1 {
			// Repeats, but too few of one run to test (a short run
			// without this transaction in some repeats): say so.
			return fmt.Sprintf("%s (untested n=%d+%d)", pct, d.N1, d.N2)
		}
		return pct
	}
	stat := fmt.Sprintf("(p=%.3f n=%d+%d)", *d.P, d.N1, d.N2)
	if !d.Significant {
		return "~ " + stat
	}
	return pct + " " + stat
}

// num prints a figure with about four significant digits.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1 || v == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	// Three significant digits, keeping trailing zeros (0.900, 0.0450).
	return strconv.FormatFloat(v, 'f', 2-int(math.Floor(math.Log10(a))), 64)
}

// header lists the columns: the runs, each after the first with its delta.
func header(c *Comparison) []string {
	cols := []string{"metric", c.Runs[0].Name}
	for _, r := range c.Runs[1:] {
		cols = append(cols, r.Name, "delta")
	}
	return cols
}

func row(m Metric) []string {
	cells := []string{m.label(), m.Values[0].cell(m.Unit)}
	for i, d := range m.Deltas {
		cells = append(cells, m.Values[i+1].cell(m.Unit), d.cell())
	}
	return cells
}

func writeText(w io.Writer, c *Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	for gi, g := range c.Groups {
		if gi > 0 {
			fmt.Fprintln(tw)
		}
		if g.Point != "" {
			fmt.Fprintf(tw, "%s\n", g.Point)
		}
		fmt.Fprintln(tw, strings.Join(header(c), "\t"))
		for _, m := range g.Metrics {
			fmt.Fprintln(tw, strings.Join(row(m), "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeNotes(w, c, "")
}

func writeNotes(w io.Writer, c *Comparison, bullet string) error {
	if len(c.Notes) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	for _, n := range c.Notes {
		if bullet != "" { // Markdown
			n = report.Escape(n)
		}
		if _, err := fmt.Fprintf(w, "%snote: %s\n", bullet, n); err != nil {
			return err
		}
	}
	return nil
}

func writeMarkdown(w io.Writer, c *Comparison) error {
	// Names, plans, flavors and labels come from the runs' report.json:
	// report.Escape, as in report.md. Figures are benchrig's own text
	// (a '|' is all they could hold).
	esc := report.Escape
	figure := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| run | plan | flavor | created |\n|---|---|---|---|\n")
	for _, r := range c.Runs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", esc(r.Name), esc(r.Plan), esc(r.Flavor), r.Created.UTC().Format("2006-01-02 15:04 UTC"))
	}
	for _, g := range c.Groups {
		b.WriteString("\n")
		if g.Point != "" {
			fmt.Fprintf(&b, "**%s**\n\n", esc(g.Point))
		}
		h := header(c)
		for i := range h {
			h[i] = esc(h[i])
		}
		b.WriteString("| " + strings.Join(h, " | ") + " |\n|---" + strings.Repeat("|---:", len(h)-1) + "|\n")
		for _, m := range g.Metrics {
			cells := row(m)
			for i := range cells {
				if i == 0 {
					cells[i] = esc(cells[i])
				} else {
					cells[i] = figure(cells[i])
				}
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeNotes(w, c, "- ")
}
