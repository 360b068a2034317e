package report

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchrig/benchrig/orchestrator/probe"
)

// Markdown renders the report for people; plots are the SVG files written
// next to it.
func Markdown(r *Report, plots []string) string { return markdown(r, plots, nil) }

// markdown is Markdown with the host CPU plots of the hosts section.
func markdown(r *Report, plots, hostPlots []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# benchrig report: %s\n\n", Escape(r.Plan))
	if lines := r.IncompleteHosts(); len(lines) > 0 {
		// First, before any figure: they count less than the run.
		b.WriteString("> **INCOMPLETE:** a measured run died before the end of the window, so every figure below counts less than the run and is not its result:\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "> - %s\n", Escape(l))
		}
		b.WriteString(">\n> Measure again on every workload host with `benchrig resume --from run` on this run directory.\n\n")
	}
	if r.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", Escape(r.Description))
	}
	fmt.Fprintf(&b, "- flavor: %s", Escape(r.Flavor))
	if r.Database != "" {
		fmt.Fprintf(&b, " (%s)", Escape(r.Database))
	}
	fmt.Fprintf(&b, "\n- benchrig: %s\n- started: %s\n", Escape(r.Benchrig), r.Created.Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(&b, "- TPC-C: %d warehouses", r.TPCC.Warehouses)
	if r.TPCC.ActiveWarehouses > 0 {
		fmt.Fprintf(&b, " (%d active)", r.TPCC.ActiveWarehouses)
	}
	if r.TPCC.Partitions > 0 {
		fmt.Fprintf(&b, ", %d partitions", r.TPCC.Partitions)
	}
	fmt.Fprintf(&b, ", ramp %s, duration %s\n", Escape(r.TPCC.Ramp), Escape(r.TPCC.Duration))
	if d := r.TPCC.Data; d != nil {
		fmt.Fprintf(&b, "- Data: C_LAST generated with C-Load %d (%s)\n", d.CLoad, Escape(d.Note))
	}
	b.WriteString("\n")

	b.WriteString("## Result\n\n")
	if len(r.CRUD) > 0 {
		b.WriteString("A CRUD micro-benchmark (inserts, updates, point and range selects); \"all\" adds the hosts' counts over each phase's slowest host.\n\n| host |")
		for _, c := range r.CRUD[0].Columns {
			fmt.Fprintf(&b, " %s |", Escape(c.Name))
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.CRUD[0].Columns)) + "\n")
		for _, row := range r.CRUD {
			fmt.Fprintf(&b, "| %s |", Escape(row.Host))
			for _, c := range row.Columns {
				fmt.Fprintf(&b, " %s |", Escape(c.Text()))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	} else if res := r.Result; res != nil {
		fmt.Fprintf(&b, "| tpmC | efficiency | elapsed | warehouses | verdict |\n|---:|---:|---:|---:|---|\n")
		fmt.Fprintf(&b, "| %.2f | %.2f %% | %.1f s | %d | %s |\n\n", res.TpmC, res.Efficiency, res.Elapsed, res.Warehouses, Escape(verdict(res)))
		b.WriteString("Efficiency is tpmC / (12.605 × warehouses), as `tpcc-merge-results` computes it.\n\n")
		writeWorkloadFinal(&b, res.WorkloadFinal)
		b.WriteString("| transaction | count | errors | retries | ops/s | p50 ms | p90 ms | p95 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, o := range res.Ops {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", Escape(o.Name), o.Count, count(o.Errors), count(o.Retries), o.PerSec, o.P50, o.P90, o.P95, o.P99, o.Max)
		}
		if res.RetriesPerTxn != nil && res.RetryLostSeconds != nil && res.RetryLostPercent != nil {
			fmt.Fprintf(&b, "\nRetries (serialization failures and deadlocks): %.3f per committed transaction; %.1f s lost to them (failed attempts and backoff, summed over transactions), %.1f %% of response time.\n",
				*res.RetriesPerTxn, *res.RetryLostSeconds, *res.RetryLostPercent)
		}
		fmt.Fprintf(&b, "\nMerged from: %s\n\n", Escape(strings.Join(res.Files, ", ")))
		if len(res.Unverified) > 0 {
			fmt.Fprintf(&b, "Unverified: every figure above is the workload hosts' own claim (a hostile host can lie about its own results); merged from: %s.\n\n", Escape(strings.Join(res.Unverified, ", ")))
		}
		writeHosts(&b, res.Hosts)
	} else if len(r.Rounds) == 0 {
		b.WriteString("No histogram files were collected: the run stage did not finish.\n\n")
	}
	if len(r.Rounds) > 1 || (len(r.Rounds) == 1 && r.Rounds[0].Flag != "") {
		writeRounds(&b, r)
	}
	writePublished(&b, r.Published)
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "> **Warning:** %s\n\n", Escape(w))
	}
	for _, p := range plots {
		b.WriteString(image(p))
	}
	writeHostMetrics(&b, r, hostPlots)

	if r.StartSkew != nil || len(r.Clock) > 0 {
		b.WriteString("## Start and clocks\n\n")
		if s := r.StartSkew; s != nil {
			fmt.Fprintf(&b, "Workload hosts started the measured run %.3f ms apart (each host's delay after the common --start-at instant, by its own clock):\n\n", s.Spread)
			hosts := make([]string, 0, len(s.PerHost))
			for h := range s.PerHost {
				hosts = append(hosts, h)
			}
			sort.Strings(hosts)
			for _, h := range hosts {
				fmt.Fprintf(&b, "- %s: %.3f ms\n", Escape(h), s.PerHost[h])
			}
			b.WriteString("\n")
			if len(s.ReadyAt) > 0 && s.StartAt != nil {
				fmt.Fprintf(&b, "They started from the ready barrier: each opened and warmed its connections, then waited; their warm-ups ended %.3f s apart, and the common start instant %s was fixed after the last (by each host's own clock, ready before the start):\n\n",
					s.ReadySpread/1000, s.StartAt.UTC().Format(time.RFC3339Nano))
				for _, h := range hosts {
					if at, ok := s.ReadyAt[h]; ok {
						fmt.Fprintf(&b, "- %s: ready %.3f s before the start\n", Escape(h), s.StartAt.Sub(at).Seconds())
					}
				}
				b.WriteString("\n")
			}
		}
		if len(r.Clock) > 0 {
			b.WriteString("Clock offsets against the orchestrator (host minus orchestrator, ± half the round trip):\n\n| host | offset ms | round trip ms |\n|---|---:|---:|\n")
			for _, c := range r.Clock {
				fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", Escape(c.Host), c.OffsetMs, c.RTTMs)
			}
			b.WriteString("\n")
		}
	}

	writeAudit(&b, r.Audit)
	writeDisks(&b, r.Disks)

	b.WriteString("## Stages\n\n| stage | status | hosts | failed | seconds |\n|---|---|---:|---:|---:|\n")
	for _, s := range r.Stages {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.1f |\n", Escape(s.Name), Escape(s.Status), s.Hosts, s.Failures, s.Seconds)
	}
	b.WriteString("\n## Topology\n\n")
	fmt.Fprintf(&b, "%d database nodes", len(r.Topology.Nodes))
	if r.Topology.Racks > 0 {
		fmt.Fprintf(&b, " in %d racks", r.Topology.Racks)
	}
	fmt.Fprintf(&b, ", %d workload hosts.\n\n| host | role | address | rack | partitions |\n|---|---|---|---:|---|\n", len(r.Topology.Workload))
	for _, n := range r.Topology.Nodes {
		rack := "-"
		if n.Rack >= 0 {
			rack = fmt.Sprint(n.Rack)
		}
		fmt.Fprintf(&b, "| %s | node | %s | %s | |\n", Escape(n.Name), Escape(n.Addr), rack)
	}
	for _, w := range r.Topology.Workload {
		parts := make([]string, len(w.Partitions))
		for i, p := range w.Partitions {
			parts[i] = fmt.Sprint(p)
		}
		fmt.Fprintf(&b, "| %s | workload | | | %s |\n", Escape(w.Name), strings.Join(parts, ","))
	}
	if len(r.Settings) > 0 || r.License != "" {
		b.WriteString("\n## Settings\n\n")
		for _, s := range r.Settings {
			fmt.Fprintf(&b, "- %s = %s\n", Escape(s.Name), Escape(s.Value))
		}
		if r.License != "" {
			fmt.Fprintf(&b, "- licence: %s\n", Escape(r.License))
		}
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n## Problems reading the run\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", Escape(p))
		}
	}
	return b.String()
}

// writeRounds is the section of a plan with several measured runs.
func writeRounds(b *strings.Builder, r *Report) {
	sweep := len(r.Points) > 0 && r.Points[0].Flag != ""
	fmt.Fprintf(b, "%d measured runs", len(r.Rounds))
	if sweep {
		fmt.Fprintf(b, ", sweeping --%s", Escape(r.Points[0].Flag))
	}
	b.WriteString(".\n\n| run | tpmC | efficiency | elapsed s | verdict |\n|---|---:|---:|---:|---|\n")
	for _, rd := range r.Rounds {
		fmt.Fprintf(b, "| %s | %.2f | %.2f %% | %.1f | %s |\n", Escape(rd.Label), rd.Result.TpmC, rd.Result.Efficiency, rd.Result.Elapsed, Escape(verdict(rd.Result)))
	}
	b.WriteString("\n")
	if sweep {
		fmt.Fprintf(b, "| %s | runs | tpmC mean | ± stddev | min | max | efficiency mean | ± stddev | min | max | all pass |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", Escape(r.Points[0].Flag))
	} else {
		b.WriteString("| | runs | tpmC mean | ± stddev | min | max | efficiency mean | ± stddev | min | max | all pass |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	}
	for _, pt := range r.Points {
		label := "all"
		if sweep {
			label = fmt.Sprint(pt.Value)
		}
		fmt.Fprintf(b, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f %% | %.2f | %.2f | %.2f | %v |\n", label, pt.Runs,
			pt.TpmC.Mean, pt.TpmC.StdDev, pt.TpmC.Min, pt.TpmC.Max,
			pt.Efficiency.Mean, pt.Efficiency.StdDev, pt.Efficiency.Min, pt.Efficiency.Max, pt.Pass)
	}
	b.WriteString("\n")
	if sweep {
		if r.MaxPassing != nil {
			fmt.Fprintf(b, "Largest passing --%s: **%d** (every run at efficiency >= 85 %% and within the 90th-percentile limits).\n\n", Escape(r.Points[0].Flag), *r.MaxPassing)
		} else {
			fmt.Fprintf(b, "No swept value passed (efficiency >= 85 %% and the 90th-percentile limits).\n\n")
		}
	}
}

// verdict is a result's pass/fail, or why it is not judged. Too few
// New-Orders leave only the efficiency unjudged: a 90th percentile over
// its limit fails whatever the sample.
func verdict(res *Result) string {
	var other []string
	for _, f := range res.Failures {
		if !strings.HasPrefix(f, "efficiency") {
			other = append(other, f)
		}
	}
	switch {
	case !res.Judged && len(other) > 0:
		return "FAIL: " + strings.Join(other, "; ")
	case !res.Judged:
		n := int64(0)
		for _, o := range res.Ops {
			if o.Name == "newOrder" {
				n = o.Count
			}
		}
		return fmt.Sprintf("not judged: %d New-Orders, efficiency needs %d", n, minJudgedNewOrders)
	case !res.Pass:
		return "FAIL: " + strings.Join(res.Failures, "; ")
	}
	return "PASS"
}

// count is a count that may be unknown (a host's result file missing).
func count(n *int64) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

// writeAudit is each workload host's audit checks (TPC-C clause 9.2 and
// the response-time limits), one table per host.
func writeAudit(b *strings.Builder, audit []HostAudit) {
	if len(audit) == 0 {
		return
	}
	b.WriteString("## Audit checks\n\n")
	for _, a := range audit {
		fmt.Fprintf(b, "%s:\n\n| check | verdict | observed | bounds | detail |\n|---|---|---:|---|---|\n", Escape(a.Host))
		for _, c := range a.Checks {
			obs, bounds := "", ""
			if c.Observed != nil {
				obs = strings.TrimSpace(fmt.Sprintf("%.4g %s", *c.Observed, c.Unit))
			}
			switch {
			case c.Min != nil && c.Max != nil:
				bounds = fmt.Sprintf("%.4g..%.4g", *c.Min, *c.Max)
			case c.Min != nil:
				bounds = fmt.Sprintf(">= %.4g", *c.Min)
			case c.Max != nil:
				bounds = fmt.Sprintf("<= %.4g", *c.Max)
			}
			if bounds != "" && c.Unit != "" {
				bounds += " " + c.Unit
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", Escape(c.ID), Escape(c.Verdict), Escape(obs), Escape(bounds), Escape(c.Detail))
		}
		b.WriteString("\n")
	}
}

// writeDisks is the preflight disk benchmark of each host that ran it
// (workload hosts, and every host when fio_size is 0, skip it).
func writeDisks(b *strings.Builder, all []Disk) {
	var disks []Disk
	for _, d := range all {
		if d.Status != "skipped" {
			disks = append(disks, d)
		}
	}
	if len(disks) == 0 {
		return
	}
	b.WriteString("## Disks\n\nPreflight's fio run on each store path (" + probe.FioJob + ").\n\n| host | path | read IOPS | write IOPS | read MiB/s | write MiB/s |\n|---|---|---:|---:|---:|---:|\n")
	for _, d := range disks {
		if d.Status != "measured" {
			fmt.Fprintf(b, "| %s | %s | %s | | | |\n", Escape(d.Host), Escape(d.Path), Escape(d.Status))
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %.0f | %.0f | %.1f | %.1f |\n", Escape(d.Host), Escape(d.Path), d.ReadIOPS, d.WriteIOPS, d.ReadKiBps/1024, d.WriteKiBps/1024)
	}
	b.WriteString("\n")
}

// writeWorkloadFinal is workload's own totals line per host, named apart
// from the merged efficiency above it.
//
// fidelity:v20.1/D31
//
// fidelity:v25.4/45
func writeWorkloadFinal(b *strings.Builder, lines []WorkloadFinal) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("workload's own final line per host (`_elapsed___tpmC____efc...`: efc = tpmC / (12.86 × the warehouses workload divides by), the figure the single-host pages publish):\n\n| host | elapsed s | tpmC | workload efc | p90 ms | p95 ms |\n|---|---:|---:|---:|---:|---:|\n")
	for _, l := range lines {
		fmt.Fprintf(b, "| %s | %.1f | %.1f | %.1f %% | %.1f | %.1f |\n", Escape(l.Host), l.Elapsed, l.TpmC, l.Efficiency, l.P90, l.P95)
	}
	b.WriteString("\n")
}

// writeHosts is each workload host's own result: its tpmC and efficiency
// against its own warehouses, as `tpcc run` judged them.
func writeHosts(b *strings.Builder, hosts []HostRun) {
	if len(hosts) == 0 {
		return
	}
	profiles := map[string]bool{}
	for _, h := range hosts {
		if h.Profile != "" {
			profiles[Escape(h.Profile)] = true // a host's own claim
		}
	}
	if len(profiles) > 0 {
		fmt.Fprintf(b, "Load profile: %s.\n\n", strings.Join(slices.Sorted(maps.Keys(profiles)), ", "))
	}
	b.WriteString("Each workload host's own result (efficiency against 12.86 tpmC per warehouse it drove; workload efc against 12.86 per active warehouse of the whole run, as `workload run` prints it per host):\n\n| host | tpmC | efficiency | workload efc | start delay ms | verdict |\n|---|---:|---:|---:|---:|---|\n")
	for _, h := range hosts {
		delay := "-"
		if h.StartDelayMs != nil {
			delay = fmt.Sprintf("%.3f", *h.StartDelayMs)
		}
		v := "PASS"
		switch {
		case h.Error != "":
			v = "stopped: " + h.Error
		case !h.Pass:
			v = "FAIL: " + strings.Join(h.Failures, "; ")
		}
		we := "-"
		if h.WorkloadEfficiency != nil {
			we = fmt.Sprintf("%.2f %%", *h.WorkloadEfficiency)
		}
		fmt.Fprintf(b, "| %s | %.2f | %.2f %% | %s | %s | %s |\n", Escape(h.Host), h.TpmC, h.Efficiency, we, delay, Escape(v))
	}
	b.WriteString("\n")
}

// Escape returns s as Markdown inline text that reads as s and does
// nothing else, in every common renderer (CommonMark and GFM, blackfriday,
// Python-Markdown): the one way a value from the plan, the hosts or a
// run's files enters report.md. '&', '<' and '>' become HTML entities
// (&amp; &lt; &gt;), never a backslash: CommonMark honours "\<" but
// Python-Markdown does not, and renders the tag it opens. So do '|' and
// the ':' of "://", "mailto:" or a definition (&vert; &colon;), which
// Python-Markdown would show with a backslash. The other characters
// Markdown gives a meaning inline (` * [ ] { } ! # ~ \, _ except inside a
// word) are backslash-escaped, an escape every one of those renderers
// honours, so no value opens a code span, emphasis, a link, raw HTML, an
// entity or a new table cell; the '.' of "www." is escaped so that no
// address becomes a link; a leading list marker (- + : 1. 1)) is escaped;
// line breaks and tabs become spaces (a value stays on its line, in its
// list item or cell), and control and invisible formatting characters
// (bidi overrides, zero-width spaces) become U+FFFD, shown rather than
// acted on.
func Escape(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	prev := rune(0)
	for i, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			r = ' '
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"), unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			r = '\uFFFD'
		}
		ent, ok := entities[r]
		if r == ':' && !(i == 0 || strings.HasPrefix(s[i:], "://") || hasSuffixFold(s[:i], "mailto")) {
			// Only a URL's or address's ':' (no autolink) and a
			// definition's leading one.
			ok = false
		}
		if ok {
			b.WriteString(ent)
			prev = r
			continue
		}
		switch {
		case strings.ContainsRune("\\`*[]{}!#~", r):
			b.WriteByte('\\')
		case r == '_' && !(isWord(prev) && i+1 < len(s) && isWord(rune(s[i+1]))):
			// Inside a word (pg_ctl) '_' never starts emphasis
			// (CommonMark, GFM, blackfriday); elsewhere it may.
			b.WriteByte('\\')
		case r == '.' && hasSuffixFold(s[:i], "www"):
			// No address becomes a link (blackfriday's and GFM's
			// autolinks; the ':' of a URL is an entity).
			b.WriteByte('\\')
		case i == 0 && r == '-',
			(i == 0 && r == '+' || (r == '.' || r == ')') && isDigits(s[:i])) && (i+1 == len(s) || strings.IndexByte(" \t\r\n", s[i+1]) >= 0):
			// "- x", "+ x", "1. x" and "1) x" starting a line are list
			// items; "--" after a list's "- " a rule.
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		prev = r
	}
	// Two trailing spaces before a line's end are a hard line break.
	return strings.TrimRight(b.String(), " ")
}

// entities are the characters Escape writes as HTML character references:
// those that open markup Python-Markdown has no backslash escape for (a
// tag, an entity, an autolink's "://" or "mailto:") and '|' (a GFM table
// cell), whose backslash it would show. Named references only:
// blackfriday passes numeric ones on escaped.
var entities = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '|': "&vert;", ':': "&colon;"}

// isWord says whether r is an ASCII letter or digit.
func isWord(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// hasSuffixFold is strings.HasSuffix ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

// isDigits says whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// image is the Markdown for a plot file next to report.md: its name as
// the (escaped) alternative text, the path percent-encoded.
func image(file string) string {
	return "![" + Escape(strings.TrimSuffix(file, ".svg")) + "](" + (&url.URL{Path: file}).EscapedPath() + ")\n\n"
}
