package plan

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Published is the result the plan's recipe page publishes, kept in the
// plan as data: the report sets a run's figures beside it and
// check-result says how the run compares ("1,201,000.0 tpmC = 96.4 % of
// the published 1,245,461.78"). It judges nothing: thresholds do.
//
// The release the figures were measured on can be older than the one the
// plan reproduces: the v25.4 pages carry figures measured on v20.2 (2020;
// Small, Medium, Large) and v19.2 (2019; Local), and the v20.1 pages
// figures of v19.2. Release and Year say which.
//
// fidelity:v25.4/48
type Published struct {
	// Page is the documentation page that publishes the figures.
	Page string `yaml:"page"`
	// Release is the CockroachDB release the figures were measured on.
	Release string `yaml:"release"`
	// Year is when they were measured (0: not known).
	Year int `yaml:"year"`
	// TpmC is the published tpmC.
	TpmC float64 `yaml:"tpmc"`
	// Efficiency is the published efficiency (0: none), computed on
	// EfficiencyBasis.
	Efficiency float64 `yaml:"efficiency_percent"`
	// EfficiencyBasis is what the published efficiency divides by:
	// merged (tpcc-merge-results: 12.605 tpmC per warehouse) or
	// workload (workload run's final line, efc: 12.86).
	EfficiencyBasis string `yaml:"efficiency_basis"`
	// Latency are the published latencies.
	Latency []PublishedLatency `yaml:"latency"`
	// Note says anything else a reader needs (one line).
	Note string `yaml:"note"`
}

// PublishedLatency is one published latency figure.
type PublishedLatency struct {
	// Op is a transaction. workload run's final line gives New-Order's
	// latencies (tpcc's PostRun prints it from the newOrder histogram
	// alone), so a figure taken from it is newOrder's; "*" (every
	// transaction), which a threshold may name, is refused here: no page
	// publishes such a figure and the report would compare it with
	// nothing.
	Op         string        `yaml:"op"`
	Percentile string        `yaml:"percentile"`
	Value      time.Duration `yaml:"value"`
}

// Efficiency bases of a published efficiency.
const (
	EfficiencyMerged   = "merged"
	EfficiencyWorkload = "workload"
)

// publishedRelease is a release as the pages name it: v19.2, v20.2.0.
var publishedRelease = regexp.MustCompile(`^v[0-9]{1,2}\.[0-9]{1,2}(\.[0-9]{1,3})?$`)

// Bounds of the published section.
const (
	maxPublishedLatency = 12
	maxPublishedPage    = 512
	maxPublishedNote    = 500
)

// validatePublished bounds the published section.
func validatePublished(ps *problems, p *Plan) {
	pub := p.Published
	if pub == nil {
		return
	}
	if p.Benchmark == "crud" {
		ps.at(p.nodeOr(pub), "published: a TPC-C result; benchmark crud has none")
		return
	}
	if u, err := url.Parse(pub.Page); err != nil || u.Scheme != "https" || u.Host == "" || len(pub.Page) > maxPublishedPage ||
		strings.ContainsAny(pub.Page, " \"<>`") {
		ps.at(p.nodeOr(&pub.Page), "published.page: want the https URL of the page that publishes the figures (at most %d bytes), got %q", maxPublishedPage, pub.Page)
	}
	if !publishedRelease.MatchString(pub.Release) {
		ps.at(p.nodeOr(&pub.Release), "published.release: want the release the figures were measured on, such as v19.2 or v20.2.0, got %q", pub.Release)
	}
	if pub.Year != 0 && (pub.Year < 2015 || pub.Year > 2100) {
		ps.at(p.nodeOr(&pub.Year), "published.year: want the year the figures were measured (2015 to 2100), got %d", pub.Year)
	}
	if !(pub.TpmC > 0 && pub.TpmC <= 1e9) {
		ps.at(p.nodeOr(&pub.TpmC), "published.tpmc: want the published tpmC, above 0 and at most 1e9, got %g", pub.TpmC)
	}
	if pub.Efficiency < 0 || pub.Efficiency > 150 {
		ps.at(p.nodeOr(&pub.Efficiency), "published.efficiency_percent: want 0 to 150, got %g", pub.Efficiency)
	}
	switch {
	case pub.Efficiency > 0 && pub.EfficiencyBasis != EfficiencyMerged && pub.EfficiencyBasis != EfficiencyWorkload:
		ps.at(p.nodeOr(&pub.EfficiencyBasis), "published.efficiency_basis: want %s (tpcc-merge-results, 12.605 tpmC per warehouse) or %s (workload run's final line, 12.86), got %q",
			EfficiencyMerged, EfficiencyWorkload, pub.EfficiencyBasis)
	case pub.Efficiency == 0 && pub.EfficiencyBasis != "":
		ps.at(p.nodeOr(&pub.EfficiencyBasis), "published.efficiency_basis: no efficiency_percent to qualify")
	}
	if len(pub.Latency) > maxPublishedLatency {
		ps.at(p.nodeOr(&pub.Latency), "published.latency: %d figures; at most %d", len(pub.Latency), maxPublishedLatency)
	}
	for i := range pub.Latency {
		l := &pub.Latency[i]
		where := fmt.Sprintf("published.latency[%d]", i)
		if l.Op == "*" {
			ps.at(p.nodeOr(&l.Op), "%s.op: \"*\" is no published figure: workload's final line (_elapsed___tpmC____efc...) gives New-Order's latencies (its PostRun prints the newOrder histogram alone); write op: newOrder", where)
		}
		checkOpPercentile(ps, p, where, &l.Op, &l.Percentile)
		if l.Value <= 0 || l.Value > time.Hour {
			ps.at(p.nodeOr(&l.Value), "%s.value: want a duration from 1ns to 1h, such as 486.5ms", where)
		}
	}
	if len(pub.Note) > maxPublishedNote {
		ps.at(p.nodeOr(&pub.Note), "published.note: %d bytes; at most %d", len(pub.Note), maxPublishedNote)
	}
}

// PublishedView is Published as JSON shows it (plan show --json and
// report.json): latencies in milliseconds.
type PublishedView struct {
	Page            string                 `json:"page"`
	Release         string                 `json:"release"`
	Year            int                    `json:"year,omitempty"`
	TpmC            float64                `json:"tpmc"`
	Efficiency      float64                `json:"efficiency_percent,omitempty"`
	EfficiencyBasis string                 `json:"efficiency_basis,omitempty"`
	Latency         []PublishedLatencyView `json:"latency,omitempty"`
	Note            string                 `json:"note,omitempty"`
}

// PublishedLatencyView is one published latency in milliseconds.
type PublishedLatencyView struct {
	Op         string  `json:"op"`
	Percentile string  `json:"percentile"`
	Ms         float64 `json:"ms"`
}

// View is p as JSON shows it; nil for nil.
func (p *Published) View() *PublishedView {
	if p == nil {
		return nil
	}
	v := &PublishedView{Page: p.Page, Release: p.Release, Year: p.Year, TpmC: p.TpmC, Efficiency: p.Efficiency,
		EfficiencyBasis: p.EfficiencyBasis, Note: p.Note}
	for _, l := range p.Latency {
		v.Latency = append(v.Latency, PublishedLatencyView{Op: l.Op, Percentile: l.Percentile, Ms: float64(l.Value) / float64(time.Millisecond)})
	}
	return v
}
