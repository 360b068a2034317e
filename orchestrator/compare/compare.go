package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchrig/benchrig/orchestrator/report"
)

// Schema names the version of the JSON output.
const Schema = "benchrig.compare/v1"

// Alpha is the significance level, benchstat's default.
const Alpha = 0.05

// Run is one run's report.
type Run struct {
	Name   string // short label: the run directory's name
	Dir    string // the run directory (histogram paths are relative to it)
	Report *report.Report
}

// Load reads path/report.json, or path itself when it names a file.
func Load(path string) (*Run, error) {
	file, dir := path, filepath.Dir(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file, dir = filepath.Join(path, "report.json"), path
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("compare: %w (make it with benchrig report RUN_DIR)", err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("compare: %s: %w", file, err)
	}
	name := filepath.Base(filepath.Clean(dir))
	return &Run{Name: name, Dir: dir, Report: &r}, nil
}

// Comparison is the result of Compare: what the JSON output holds.
type Comparison struct {
	Schema string    `json:"schema"`
	Alpha  float64   `json:"alpha"`
	Runs   []RunInfo `json:"runs"`
	Groups []Group   `json:"groups"`
	Notes  []string  `json:"notes,omitempty"`
}

// RunInfo identifies a compared run.
type RunInfo struct {
	Name     string    `json:"name"`
	Dir      string    `json:"dir"`
	Plan     string    `json:"plan"`
	Flavor   string    `json:"flavor"`
	Created  time.Time `json:"created"`
	Benchrig string    `json:"benchrig_version"`
}

// Group is the metrics of one measured point: the plan's runs ("") or one
// value of a sweep ("active-warehouses=1200").
type Group struct {
	Point   string   `json:"point"`
	Metrics []Metric `json:"metrics"`
}

// Metric is one figure across the runs.
type Metric struct {
	Name      string  `json:"name"`                // tpmc, efficiency_percent, p95_ms, errors, ...
	Operation string  `json:"operation,omitempty"` // the transaction, for per-transaction metrics
	Unit      string  `json:"unit"`
	Better    string  `json:"better"` // "higher" or "lower"
	Values    []Value `json:"values"` // one per run, in the order given
	Deltas    []Delta `json:"deltas"` // one per run after the first, against the first
}

// Value is one run's samples of a metric (one per repeat).
type Value struct {
	Run     string    `json:"run"`
	N       int       `json:"n"`
	Samples []float64 `json:"samples"`
	Median  float64   `json:"median"`
	// Spread is the largest deviation of a sample from the median, in
	// percent of the median (0 for one sample).
	Spread float64 `json:"spread_percent"`
}

// Delta is a run's change against the first run.
type Delta struct {
	Run string `json:"run"`
	// Percent is the change of the median; absent when either run lacks
	// the metric or the first run's median is 0 and this one's is not.
	Percent *float64 `json:"percent,omitempty"`
	// Tested is true when both runs have at least two samples; P is then
	// the Mann-Whitney p-value and Significant says P < Alpha.
	Tested      bool     `json:"tested"`
	P           *float64 `json:"p,omitempty"`
	Exact       bool     `json:"exact,omitempty"`
	Significant bool     `json:"significant"`
	N1          int      `json:"n1"`
	N2          int      `json:"n2"`
}

// Compare sets the runs side by side, the first one as the baseline.
func Compare(runs ...*Run) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, errors.New("compare: name at least two runs")
	}
	c := &Comparison{Schema: Schema, Alpha: Alpha}
	var points []string
	samples := make([]map[string][]*report.Result, len(runs))
	for i, r := range runs {
		rep := r.Report
		c.Runs = append(c.Runs, RunInfo{Name: r.Name, Dir: r.Dir, Plan: rep.Plan, Flavor: rep.Flavor, Created: rep.Created, Benchrig: rep.Benchrig})
		samples[i] = map[string][]*report.Result{}
		switch {
		case len(rep.Rounds) > 0:
			for _, rd := range rep.Rounds {
				if rd.Result == nil {
					continue
				}
				p := pointKey(rd.Flag, rd.Value)
				samples[i][p] = append(samples[i][p], rd.Result)
				if !slices.Contains(points, p) {
					points = append(points, p)
				}
			}
		case rep.Result != nil:
			samples[i][""] = []*report.Result{rep.Result}
			if !slices.Contains(points, "") {
				points = append(points, "")
			}
		default:
			return nil, fmt.Errorf("compare: run %s (%s) has no TPC-C result in its report.json", r.Name, r.Dir)
		}
	}
	for _, p := range points {
		g := Group{Point: p}
		per := make([][]*report.Result, len(runs))
		for i := range runs {
			per[i] = samples[i][p]
		}
		for _, def := range metricDefs(per) {
			g.Metrics = append(g.Metrics, buildMetric(def, runs, per))
		}
		c.Groups = append(c.Groups, g)
	}
	// A side whose measured run died on some host is named first: its
	// figures count less than the run, so any delta against it is not a
	// change of the database.
	for _, r := range runs {
		if hosts := r.Report.IncompleteHosts(); len(hosts) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s is INCOMPLETE (a measured run died): %s; its figures count less than the run, so its deltas are not the database's",
				r.Name, strings.Join(hosts, "; ")))
		}
	}
	c.Notes = append(c.Notes, notes(c)...)
	return c, nil
}

func pointKey(flag string, value int) string {
	if flag == "" {
		return ""
	}
	return flag + "=" + strconv.Itoa(value)
}

// metricDef says how to read one metric from a result; ok is false when
// the result does not have it.
type metricDef struct {
	name, op, unit, better string
	get                    func(*report.Result) (float64, bool)
}

// metricDefs lists the metrics of a point: tpmC and efficiency, then per
// transaction (in the order the first run lists them) the latency
// percentiles and, when any run reports them, errors and retries.
func metricDefs(per [][]*report.Result) []metricDef {
	defs := []metricDef{
		{name: "tpmc", unit: "tpmC", better: "higher", get: func(r *report.Result) (float64, bool) { return r.TpmC, true }},
		{name: "efficiency_percent", unit: "%", better: "higher", get: func(r *report.Result) (float64, bool) { return r.Efficiency, true }},
	}
	var ops []string
	hasErr, hasRetry := map[string]bool{}, map[string]bool{}
	for _, rs := range per {
		for _, r := range rs {
			for _, o := range r.Ops {
				if !slices.Contains(ops, o.Name) {
					ops = append(ops, o.Name)
				}
				hasErr[o.Name] = hasErr[o.Name] || o.Errors != nil
				hasRetry[o.Name] = hasRetry[o.Name] || o.Retries != nil
			}
		}
	}
	lat := []struct {
		name string
		get  func(report.Op) float64
	}{
		{"p50_ms", func(o report.Op) float64 { return o.P50 }},
		{"p90_ms", func(o report.Op) float64 { return o.P90 }},
		{"p95_ms", func(o report.Op) float64 { return o.P95 }},
		{"p99_ms", func(o report.Op) float64 { return o.P99 }},
		{"max_ms", func(o report.Op) float64 { return o.Max }},
	}
	for _, op := range ops {
		for _, l := range lat {
			// A repeat without a transaction of this type has no latency
			// (its report says 0): it is not a sample.
			defs = append(defs, metricDef{name: l.name, op: op, unit: "ms", better: "lower", get: opGetter(op, func(o report.Op) (float64, bool) { return l.get(o), o.Count > 0 })})
		}
		if hasErr[op] {
			defs = append(defs, metricDef{name: "errors", op: op, unit: "count", better: "lower", get: opGetter(op, func(o report.Op) (float64, bool) { return ptr(o.Errors) })})
		}
		if hasRetry[op] {
			defs = append(defs, metricDef{name: "retries", op: op, unit: "count", better: "lower", get: opGetter(op, func(o report.Op) (float64, bool) { return ptr(o.Retries) })})
		}
	}
	return defs
}

func ptr(p *int64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

func opGetter(name string, get func(report.Op) (float64, bool)) func(*report.Result) (float64, bool) {
	return func(r *report.Result) (float64, bool) {
		for _, o := range r.Ops {
			if o.Name == name {
				return get(o)
			}
		}
		return 0, false
	}
}

func buildMetric(def metricDef, runs []*Run, per [][]*report.Result) Metric {
	m := Metric{Name: def.name, Operation: def.op, Unit: def.unit, Better: def.better}
	for i, rs := range per {
		v := Value{Run: runs[i].Name, Samples: []float64{}}
		for _, r := range rs {
			if x, ok := def.get(r); ok {
				v.Samples = append(v.Samples, x)
			}
		}
		v.N = len(v.Samples)
		v.Median, v.Spread = summarize(v.Samples)
		m.Values = append(m.Values, v)
	}
	base := m.Values[0]
	for _, v := range m.Values[1:] {
		d := Delta{Run: v.Run, N1: base.N, N2: v.N}
		if base.N > 0 && v.N > 0 && (base.Median != 0 || v.Median == 0) {
			pct := 0.0 // 0 → 0: no change
			if base.Median != 0 {
				pct = (v.Median - base.Median) / math.Abs(base.Median) * 100
			}
			d.Percent = &pct
		}
		if base.N >= 2 && v.N >= 2 {
			d.Tested = true
			p := 1.0 // every sample equal: no difference
			if t, ok := MannWhitney(base.Samples, v.Samples); ok {
				p, d.Exact = t.P, t.Exact
			}
			d.P = &p
			d.Significant = p < Alpha
		}
		m.Deltas = append(m.Deltas, d)
	}
	return m
}

// summarize returns the median and the largest deviation from it in
// percent of it.
func summarize(xs []float64) (median, spread float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		median = s[n/2]
	} else {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	if median != 0 {
		spread = math.Max(median-s[0], s[n-1]-median) / math.Abs(median) * 100
	}
	return median, spread
}

// MinP is the smallest two-sided p-value the exact test can give for
// samples of n1 and n2 values: 2 / C(n1+n2, n1).
func MinP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// notes explain what the reader cannot see in the figures: runs without
// repeats are not tested, and too few repeats can never be significant.
func notes(c *Comparison) []string {
	var out []string
	single, small := false, false
	var smallN1, smallN2 int
	for _, g := range c.Groups {
		if len(g.Metrics) == 0 {
			continue
		}
		for _, d := range g.Metrics[0].Deltas {
			switch {
			case !d.Tested && d.N1 > 0 && d.N2 > 0:
				single = true
			case d.Tested && MinP(d.N1, d.N2) >= Alpha && !small:
				small, smallN1, smallN2 = true, d.N1, d.N2
			}
		}
	}
	if single {
		out = append(out, "runs without repeats are compared without a significance test: set tpcc.repeat to 4 or more to test")
	}
	if small {
		out = append(out, fmt.Sprintf("with %d+%d repeats no difference can reach p < %.2f (the smallest possible p is %.3f): set tpcc.repeat to 4 or more",
			smallN1, smallN2, Alpha, MinP(smallN1, smallN2)))
	}
	return out
}
