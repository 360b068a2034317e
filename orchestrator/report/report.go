package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/benchrig/benchrig/crud"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// Report is what report.json holds.
type Report struct {
	Plan        string        `json:"plan"`
	Flavor      string        `json:"flavor"`
	Description string        `json:"description,omitempty"`
	Benchrig    string        `json:"benchrig_version"`
	Database    string        `json:"database_version,omitempty"`
	Created     time.Time     `json:"created"`
	Topology    Topology      `json:"topology"`
	Settings    []Setting     `json:"settings,omitempty"`
	License     string        `json:"license,omitempty"`
	TPCC        Params        `json:"tpcc"`
	Stages      []StageTiming `json:"stages"`
	Result      *Result       `json:"result,omitempty"`
	Audit       []HostAudit   `json:"audit,omitempty"`
	StartSkew   *Skew         `json:"start_skew,omitempty"`
	Clock       []ClockOffset `json:"clock_offsets,omitempty"`
	Problems    []string      `json:"problems,omitempty"`
	Series      []TickPoint   `json:"tpmc_series,omitempty"`
	// Rounds are the measured runs of a plan with tpcc.repeat or
	// tpcc.sweep; Points summarise them per swept value.
	Rounds []RoundResult `json:"rounds,omitempty"`
	Points []Point       `json:"points,omitempty"`
	// MaxPassing is the largest swept value whose every repeat passed
	// (efficiency >= 85 % and the 90th-percentile limits).
	MaxPassing *int `json:"max_passing,omitempty"`
	// CRUD holds the crud benchmark's figures per host and for all hosts.
	CRUD []CRUDRow `json:"crud,omitempty"`
}

// CRUDRow is one host's (or "all") nine figures.
type CRUDRow struct {
	Host    string        `json:"host"`
	Columns []crud.Column `json:"columns"`
}

// RoundResult is one measured run.
type RoundResult struct {
	Label  string  `json:"label"`
	Flag   string  `json:"flag,omitempty"`
	Value  int     `json:"value,omitempty"`
	Repeat int     `json:"repeat"`
	Result *Result `json:"result"`
}

// Point summarises the repeats of one swept value (or of the plan, without
// a sweep).
type Point struct {
	Flag       string `json:"flag,omitempty"`
	Value      int    `json:"value,omitempty"`
	Runs       int    `json:"runs"`
	TpmC       Stats  `json:"tpmc"`
	Efficiency Stats  `json:"efficiency_percent"`
	Pass       bool   `json:"pass"`
}

// Stats are the mean, sample standard deviation, minimum and maximum.
type Stats struct {
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Topology lists the hosts.
type Topology struct {
	Nodes    []Node     `json:"nodes"`
	Workload []Workload `json:"workload"`
	Racks    int        `json:"racks"`
}

// Node is one database node.
type Node struct {
	Name string `json:"name"`
	Addr string `json:"addr"`
	Rack int    `json:"rack"`
}

// Workload is one workload host.
type Workload struct {
	Name       string `json:"name"`
	Partitions []int  `json:"partitions,omitempty"`
}

// Setting is one applied setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Params are the benchmark parameters.
type Params struct {
	Warehouses       int    `json:"warehouses"`
	ActiveWarehouses int    `json:"active_warehouses,omitempty"`
	Partitions       int    `json:"partitions,omitempty"`
	Ramp             string `json:"ramp"`
	Duration         string `json:"duration"`
}

// StageTiming is one stage's outcome and wall time.
type StageTiming struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Seconds  float64 `json:"seconds"`
	Hosts    int     `json:"hosts"`
	Failures int     `json:"failures,omitempty"`
}

// Result is the merged TPC-C result, by the formulas of
// `workload debug tpcc-merge-results`.
type Result struct {
	Warehouses int     `json:"warehouses"`
	Elapsed    float64 `json:"elapsed_seconds"`
	TpmC       float64 `json:"tpmc"`
	Efficiency float64 `json:"efficiency_percent"`
	Pass       bool    `json:"pass"`
	// Judged is false when the run had too few New-Orders for its
	// efficiency to mean anything (±1/√N): the verdict is then shown as
	// not judged, whatever Pass says.
	Judged   bool     `json:"judged"`
	Failures []string `json:"failures,omitempty"`
	Ops      []Op     `json:"operations"`
	Files    []string `json:"files"`
}

// Op is one transaction type's latency summary.
type Op struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	PerSec float64 `json:"ops_per_sec"`
	P50    float64 `json:"p50_ms"`
	P90    float64 `json:"p90_ms"`
	P95    float64 `json:"p95_ms"`
	P99    float64 `json:"p99_ms"`
	Max    float64 `json:"max_ms"`
}

// HostAudit holds a workload host's audit check lines.
type HostAudit struct {
	Host   string   `json:"host"`
	Checks []string `json:"checks"`
}

// Skew is how far apart the workload hosts started the measured run.
type Skew struct {
	PerHost map[string]float64 `json:"per_host_ms"` // each host's delay after --start-at
	Spread  float64            `json:"spread_ms"`   // max - min
}

// ClockOffset is a host's clock minus this machine's, from the probe.
type ClockOffset struct {
	Host     string  `json:"host"`
	OffsetMs float64 `json:"offset_ms"`
	RTTMs    float64 `json:"rtt_ms"`
}

// TickPoint is the merged tpmC of one second of the run.
type TickPoint struct {
	Second float64 `json:"t"`
	TpmC   float64 `json:"tpmc"`
}

// Build reads a run directory.
func Build(runDir string, p *plan.Plan, st *rundir.State, version string) (*Report, error) {
	r := &Report{
		Plan: p.Name, Flavor: p.Flavor, Description: p.Description, Benchrig: version, Created: st.Created,
		TPCC: Params{Warehouses: p.TPCC.Warehouses, ActiveWarehouses: p.TPCC.ActiveWarehouses, Partitions: p.TPCC.Partitions,
			Ramp: p.TPCC.Ramp.String(), Duration: p.TPCC.Duration.String()},
	}
	for _, h := range p.Nodes {
		r.Topology.Nodes = append(r.Topology.Nodes, Node{Name: h.Name, Addr: h.Addr, Rack: h.Rack})
	}
	for _, h := range p.Workload {
		r.Topology.Workload = append(r.Topology.Workload, Workload{Name: h.Name, Partitions: h.Partitions})
	}
	r.Topology.Racks = p.Racks()
	for _, s := range p.Settings.Ordered() {
		r.Settings = append(r.Settings, Setting{Name: s.Name, Value: s.Value})
	}
	if l := p.License; l != nil && l.Key != nil {
		r.License = fmt.Sprintf("organization %q, key read from %s at run time (never stored)", l.Organization, l.Key)
	}
	for _, s := range st.Stages {
		t := StageTiming{Name: s.Name, Status: s.Status, Hosts: len(s.Hosts)}
		if s.Started != nil && s.Finished != nil {
			t.Seconds = s.Finished.Sub(*s.Started).Seconds()
		}
		for _, h := range s.Hosts {
			if h.Status == rundir.Failed {
				t.Failures++
			}
		}
		r.Stages = append(r.Stages, t)
	}
	if len(p.Nodes) > 0 {
		r.Database = firstOutputLine(filepath.Join(runDir, "logs", "install", p.Nodes[0].Name+".log"), "check PostgreSQL programs", "")
	}
	if p.Benchmark == "crud" {
		r.readCRUD(runDir, p)
	} else {
		r.readResult(runDir, p, st)
	}
	r.readRunLogs(runDir, p)
	r.readClock(runDir)
	return r, nil
}

// readResult merges the collected histogram files of every round.
func (r *Report) readResult(runDir string, p *plan.Plan, st *rundir.State) {
	rounds := p.Rounds()
	if p.TPCC.Search != nil {
		// The values a search tried, in the order it tried them.
		rounds = nil
		for _, s := range st.Stages {
			for _, pt := range s.Search {
				rounds = append(rounds, plan.Round{Label: plan.SearchLabel(pt.Value), Flag: "active-warehouses", Value: pt.Value, Repeat: 1})
			}
		}
		sort.SliceStable(rounds, func(i, j int) bool { return rounds[i].Value < rounds[j].Value })
	}
	for _, rd := range rounds {
		w := p.TPCC.Warehouses
		if rd.Flag == "active-warehouses" {
			w = rd.Value
		} else if p.TPCC.ActiveWarehouses > 0 {
			w = p.TPCC.ActiveWarehouses
		}
		var files []string
		for i, h := range p.Workload {
			f := filepath.Join(runDir, "results", h.Name, plan.HistogramFile(p, i, rd))
			if _, err := os.Stat(f); err == nil {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		res, ticks := r.merge(runDir, w, files)
		if res == nil {
			continue
		}
		r.Rounds = append(r.Rounds, RoundResult{Label: rd.Label, Flag: rd.Flag, Value: rd.Value, Repeat: rd.Repeat, Result: res})
		if r.Result == nil {
			r.Result, r.Series = res, series(ticks)
		}
	}
	if len(rounds) > 1 || p.TPCC.Search != nil {
		r.Result, r.Series = nil, nil
		r.summarize(p)
	} else {
		r.Rounds = nil // the single run is r.Result
	}
}

// readCRUD takes the workload hosts' crud results.
func (r *Report) readCRUD(runDir string, p *plan.Plan) {
	var all []crud.Result
	for i, h := range p.Workload {
		data, err := os.ReadFile(filepath.Join(runDir, "results", h.Name, fmt.Sprintf("crud%d.json", i+1)))
		if err != nil {
			continue
		}
		_, res, err := crud.ReadJSON(data)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", h.Name, err))
			continue
		}
		r.CRUD = append(r.CRUD, CRUDRow{Host: h.Name, Columns: res.Columns()})
		all = append(all, res)
	}
	if len(all) > 1 {
		r.CRUD = append(r.CRUD, CRUDRow{Host: "all", Columns: crud.Combine(all...).Columns()})
	}
}

// merge combines one round's files.
func (r *Report) merge(runDir string, w int, files []string) (*Result, []histogram.Tick) {
	var results []*histogram.Result
	var all []histogram.Tick
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			continue
		}
		ticks, err := histogram.Decode(fh)
		fh.Close()
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		res, err := histogram.NewResult(w, ticks)
		if err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		results = append(results, res)
		all = append(all, ticks...)
	}
	if len(results) == 0 {
		return nil, nil
	}
	m, err := histogram.MergeResults(results...)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return nil, nil
	}
	res := &Result{Warehouses: w, Elapsed: m.Elapsed.Seconds(), TpmC: m.TpmC(), Efficiency: m.Efficiency(), Pass: true}
	for _, f := range files {
		rel, _ := filepath.Rel(runDir, f)
		res.Files = append(res.Files, rel)
	}
	var ce *histogram.CheckError
	if err := m.Check(); errors.As(err, &ce) {
		res.Pass, res.Failures = false, ce.Failures
	}
	res.Judged = m.Count(histogram.NewOrder) >= minJudgedNewOrders
	for _, name := range histogram.TPCCNames() {
		h, ok := m.Cumulative[name]
		if !ok {
			continue
		}
		op := Op{Name: name, Count: h.TotalCount(),
			P50: histogram.Millis(h.ValueAtQuantile(50)), P90: histogram.Millis(h.ValueAtQuantile(90)),
			P95: histogram.Millis(h.ValueAtQuantile(95)), P99: histogram.Millis(h.ValueAtQuantile(99)),
			Max: histogram.Millis(h.ValueAtQuantile(100))}
		if m.Elapsed > 0 {
			op.PerSec = float64(op.Count) / m.Elapsed.Seconds()
		}
		res.Ops = append(res.Ops, op)
	}
	return res, all
}

// summarize groups rounds by swept value.
func (r *Report) summarize(p *plan.Plan) {
	var order []int
	groups := map[int][]RoundResult{}
	for _, rd := range r.Rounds {
		if _, ok := groups[rd.Value]; !ok {
			order = append(order, rd.Value)
		}
		groups[rd.Value] = append(groups[rd.Value], rd)
	}
	for _, v := range order {
		g := groups[v]
		pt := Point{Flag: g[0].Flag, Value: v, Runs: len(g), Pass: true}
		var tpmc, eff []float64
		for _, rd := range g {
			tpmc = append(tpmc, rd.Result.TpmC)
			eff = append(eff, rd.Result.Efficiency)
			pt.Pass = pt.Pass && rd.Result.Pass
		}
		pt.TpmC, pt.Efficiency = stats(tpmc), stats(eff)
		r.Points = append(r.Points, pt)
		if pt.Flag != "" && pt.Pass && (r.MaxPassing == nil || v > *r.MaxPassing) {
			v := v
			r.MaxPassing = &v
		}
	}
}

func stats(xs []float64) Stats {
	if len(xs) == 0 {
		return Stats{}
	}
	s := Stats{Min: xs[0], Max: xs[0]}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.StdDev = math.Sqrt(ss / float64(len(xs)-1))
	}
	return s
}

// series is merged tpmC per second of the run: New-Order ticks of every
// host binned by the second they end in.
func series(ticks []histogram.Tick) []TickPoint {
	var start time.Time
	bins := map[int64]int64{}
	for _, t := range ticks {
		if t.Name != histogram.NewOrder {
			continue
		}
		begin := t.Now.Add(-t.Elapsed)
		if start.IsZero() || begin.Before(start) {
			start = begin
		}
	}
	if start.IsZero() {
		return nil
	}
	var last int64
	for _, t := range ticks {
		if t.Name != histogram.NewOrder {
			continue
		}
		h, err := t.Hist.Histogram()
		if err != nil {
			continue
		}
		sec := int64(t.Now.Sub(start).Seconds())
		bins[sec] += h.TotalCount()
		last = max(last, sec)
	}
	out := make([]TickPoint, 0, last+1)
	for s := int64(1); s <= last; s++ {
		out = append(out, TickPoint{Second: float64(s), TpmC: float64(bins[s]) * 60})
	}
	return out
}

var (
	auditLine = regexp.MustCompile(`Audit check \S+: (PASS|FAIL|SKIP).*`)
	startLine = regexp.MustCompile(`Started (\S+) after --start-at`)
)

// readRunLogs takes each workload host's audit checks and start delay
// from its run stage log.
func (r *Report) readRunLogs(runDir string, p *plan.Plan) {
	skew := &Skew{PerHost: map[string]float64{}}
	for _, h := range p.Workload {
		f, err := os.Open(filepath.Join(runDir, "logs", "run", h.Name+".log"))
		if err != nil {
			continue
		}
		ha := HostAudit{Host: h.Name}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := auditLine.FindString(line); m != "" {
				ha.Checks = append(ha.Checks, m)
			}
			if m := startLine.FindStringSubmatch(line); m != nil {
				if d, err := time.ParseDuration(m[1]); err == nil {
					skew.PerHost[h.Name] = float64(d) / float64(time.Millisecond)
				}
			}
		}
		f.Close()
		if len(ha.Checks) > 0 {
			r.Audit = append(r.Audit, ha)
		}
	}
	if len(skew.PerHost) > 0 {
		lo, hi := 0.0, 0.0
		first := true
		for _, v := range skew.PerHost {
			if first || v < lo {
				lo = v
			}
			if first || v > hi {
				hi = v
			}
			first = false
		}
		skew.Spread = hi - lo
		r.StartSkew = skew
	}
}

// minJudgedNewOrders is the New-Order count from which a result's
// efficiency is judged (about ±3 %), as the driver's own audit does.
const minJudgedNewOrders = 1000

// ClockFile is where the run keeps its clock probe results.
const ClockFile = "clock.json"

func (r *Report) readClock(runDir string) {
	data, err := os.ReadFile(filepath.Join(runDir, ClockFile))
	if err != nil {
		return
	}
	if err := json.Unmarshal(data, &r.Clock); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", ClockFile, err))
	}
}

// firstOutputLine returns the first output line after the log header of
// the step named what.
func firstOutputLine(path, what, def string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "== ") && strings.Contains(l, " "+what+": ") && i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
	}
	return def
}

// Write builds the report and writes report.json, report.md and the plots
// into the run directory; it returns the report.md path.
func Write(runDir string, p *plan.Plan, st *rundir.State, version string) (string, error) {
	r, err := Build(runDir, p, st, version)
	if err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(runDir, "report.json"), append(data, '\n'), 0o644); err != nil {
		return "", err
	}
	var plots []string
	if len(r.Series) > 0 {
		if err := plotTpmC(filepath.Join(runDir, "tpmc.svg"), r); err != nil {
			r.Problems = append(r.Problems, "tpmc.svg: "+err.Error())
		} else {
			plots = append(plots, "tpmc.svg")
		}
	}
	if r.Result != nil && len(r.Result.Ops) > 0 {
		if err := plotLatency(filepath.Join(runDir, "latency.svg"), r); err != nil {
			r.Problems = append(r.Problems, "latency.svg: "+err.Error())
		} else {
			plots = append(plots, "latency.svg")
		}
	}
	if len(r.Points) > 1 && r.Points[0].Flag != "" {
		if err := plotSweep(filepath.Join(runDir, "sweep.svg"), r); err != nil {
			r.Problems = append(r.Problems, "sweep.svg: "+err.Error())
		} else {
			plots = append(plots, "sweep.svg")
		}
	}
	md := filepath.Join(runDir, "report.md")
	if err := os.WriteFile(md, []byte(Markdown(r, plots)), 0o644); err != nil {
		return "", err
	}
	return md, nil
}
