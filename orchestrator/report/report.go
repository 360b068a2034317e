package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchrig/benchrig/crud"
	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/probe"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/result"
)

// Schema is report.json's version (docs/schema/report.v1.json). Fields
// may be added within a version; a change that would make an old reader
// misread a report gets a new one.
const Schema = "benchrig.report/v1"

// SchemaV2 is v1 plus what a v1 reader would misread: a result with
// "incomplete" hosts, whose measured runs died before the window's end.
// A report is written as v2 only when it has one, so a reader that
// does not know the field refuses exactly the reports it would take for
// complete runs.
const SchemaV2 = "benchrig.report/v2"

// Report is what report.json holds.
type Report struct {
	Schema      string        `json:"schema"`
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
	// Disks are the preflight disk benchmarks.
	Disks []Disk `json:"disks,omitempty"`
	// HostMetrics summarise every host's CPU during each round;
	// Warnings are findings about the run (a client-bound driver).
	HostMetrics []HostMetric `json:"host_metrics,omitempty"`
	Warnings    []string     `json:"warnings,omitempty"`
	// Published is the plan's published reference with the run beside
	// it (published.go).
	Published *Published `json:"published,omitempty"`

	hostSamples []roundHosts // for the plots
}

// Disk is one host's preflight disk benchmark (probe.Fio).
type Disk struct {
	Host       string  `json:"host"`
	Path       string  `json:"path"`
	Status     string  `json:"status"`
	ReadIOPS   float64 `json:"read_iops"`
	WriteIOPS  float64 `json:"write_iops"`
	ReadKiBps  float64 `json:"read_kib_per_s"`
	WriteKiBps float64 `json:"write_kib_per_s"`
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
	// Data is what the TPC-C data's C_LAST was generated with and the
	// C-Run the run draws it with (clause 2.1.6.1), for the plan's
	// loader and driver.
	Data *tpcc.DataGeneration `json:"data,omitempty"`
}

// dataGeneration is what the plan's import generated its data with
// (the seed is workload's default: plans give none).
//
// fidelity:v20.1/D29
func dataGeneration(p *plan.Plan) *tpcc.DataGeneration {
	if p.Benchmark != "" && p.Benchmark != "tpcc" {
		return nil
	}
	l := tpcc.LoaderBenchrig
	switch p.TPCC.Import.Method {
	case plan.ImportIMPORT:
		l = tpcc.LoaderNodes
	case plan.ImportInit:
		l = tpcc.LoaderClient
	}
	if p.TPCC.Driver == plan.DriverWorkload && p.TPCC.Import.Method != plan.ImportInit {
		l = tpcc.LoaderNodes // fixtures import
	}
	workloadRun := p.TPCC.Driver == plan.DriverWorkload || p.TPCC.Profile == string(tpcc.ProfileWorkload)
	d := tpcc.NewDataGeneration(l, 0, workloadRun)
	return &d
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
	// What retries cost: retries per committed transaction and
	// the time lost to them, from the hosts' result files (nil unless
	// every host's has them).
	RetriesPerTxn    *float64 `json:"retries_per_txn,omitempty"`
	RetryLostSeconds *float64 `json:"retry_lost_s,omitempty"`
	RetryLostPercent *float64 `json:"retry_lost_percent,omitempty"`
	Ops              []Op     `json:"operations"`
	Files            []string `json:"files"`
	// WorkloadFinal are, with driver: workload, the totals line
	// CockroachDB's workload printed at the end of each host's run:
	// workload's own tpmC and efc (12.86 per warehouse it divides by),
	// the figure the v25.4 single-host pages publish, beside Efficiency
	// (tpcc merge's, 12.605 per warehouse of the run).
	WorkloadFinal []WorkloadFinal `json:"workload_final_lines,omitempty"`
	// Hosts are the workload hosts' own results of this run, from their
	// result files.
	Hosts []HostRun `json:"hosts,omitempty"`
	// Unverified names the hosts whose figures were merged: each is that
	// host's own claim (a hostile host can lie about its own results),
	// which benchrig parses strictly but cannot check.
	Unverified []string `json:"unverified_hosts,omitempty"`
	// Incomplete names the hosts whose measured run died before the
	// window's end, with how much of it each covered: every figure above
	// counts less than the run (the report is benchrig.report/v2).
	Incomplete []result.IncompleteHost `json:"incomplete,omitempty"`
}

// IncompleteHosts lists, one line each, the hosts of any of the report's
// results whose measured run died ("load1 killed (SIGKILL), covered
// 2.1 s of the 5.0 s window (42.0%)"; a round's label is appended).
func (r *Report) IncompleteHosts() []string {
	var out []string
	add := func(res *Result, label string) {
		if res == nil {
			return
		}
		for _, h := range res.Incomplete {
			line := h.Text()
			if label != "" {
				line += " (round " + label + ")"
			}
			out = append(out, line)
		}
	}
	add(r.Result, "")
	for _, rd := range r.Rounds {
		add(rd.Result, rd.Label)
	}
	return out
}

// WorkloadFinal is one host's workload totals line.
type WorkloadFinal struct {
	Host       string  `json:"host"`
	File       string  `json:"file"`
	Elapsed    float64 `json:"elapsed_seconds"`
	TpmC       float64 `json:"tpmc"`
	Efficiency float64 `json:"efficiency_percent"`
	P90        float64 `json:"p90_ms"`
	P95        float64 `json:"p95_ms"`
}

// HostRun is one workload host's own view of a run: its tpmC and
// efficiency (12.86 × its active warehouses), its start delay after
// --start-at, and whether its audit passed.
type HostRun struct {
	Host       string  `json:"host"`
	File       string  `json:"file"`
	TpmC       float64 `json:"tpmc"`
	Efficiency float64 `json:"efficiency_percent"`
	// WorkloadEfficiency is workload's per-host efc: over all active
	// warehouses of the run (12.86 each), where Efficiency is over the
	// host's own; null when the host's result does not say how many.
	WorkloadEfficiency *float64 `json:"workload_efficiency_percent,omitempty"`
	// Profile is the load profile the host ran (tpcc run --profile).
	Profile      string   `json:"profile,omitempty"`
	StartDelayMs *float64 `json:"start_delay_ms,omitempty"`
	Pass         bool     `json:"pass"`
	Failures     []string `json:"failures,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// Op is one transaction type's latency summary.
type Op struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	// Errors and Retries sum the hosts' result files; null when one is
	// missing.
	Errors      *int64   `json:"errors"`
	Retries     *int64   `json:"retries"`
	RetryLostMs *float64 `json:"retry_lost_ms,omitempty"`
	PerSec      float64  `json:"ops_per_sec"`
	P50         float64  `json:"p50_ms"`
	P90         float64  `json:"p90_ms"`
	P95         float64  `json:"p95_ms"`
	P99         float64  `json:"p99_ms"`
	Max         float64  `json:"max_ms"`
}

// HostAudit holds a workload host's audit checks.
type HostAudit struct {
	Host   string              `json:"host"`
	Checks []result.AuditCheck `json:"checks"`
}

// Skew is how far apart the workload hosts started the measured run.
type Skew struct {
	PerHost map[string]float64 `json:"per_host_ms"` // each host's delay after --start-at
	Spread  float64            `json:"spread_ms"`   // max - min
	// With the start barrier: when each host became ready (its warm-up
	// ended, by its clock), how far apart, and the instant all started
	// at, fixed after the last was ready.
	ReadyAt     map[string]time.Time `json:"ready_at,omitempty"`
	ReadySpread float64              `json:"ready_spread_ms,omitempty"`
	StartAt     *time.Time           `json:"start_at,omitempty"`
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
		Schema: Schema, Plan: p.Name, Flavor: p.Flavor, Description: p.Description, Benchrig: version, Created: st.Created,
		TPCC: Params{Warehouses: p.TPCC.Warehouses, ActiveWarehouses: p.TPCC.ActiveWarehouses, Partitions: p.TPCC.Partitions,
			Ramp: p.TPCC.Ramp.String(), Duration: p.TPCC.Duration.String(), Data: dataGeneration(p)},
	}
	// Lists are [] rather than null in report.json, as its schema says.
	r.Topology.Nodes, r.Topology.Workload, r.Stages = []Node{}, []Workload{}, []StageTiming{}
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
		r.Database = VersionLine(firstOutputLine(filepath.Join(runDir, "logs", "install", p.Nodes[0].Name+".log"), "check PostgreSQL programs", ""))
	}
	if p.Benchmark == "crud" {
		r.readCRUD(runDir, p)
	} else {
		r.readResult(runDir, p, st)
	}
	r.published(p)
	r.readClock(runDir)
	r.readDisks(runDir, p)
	r.readHosts(runDir, p)
	if len(r.IncompleteHosts()) > 0 {
		r.Schema = SchemaV2
	}
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
		var hosts, files []string
		for i, h := range p.Workload {
			f := filepath.Join("results", h.Name, plan.HistogramFile(p, i, rd))
			_, err := os.Stat(filepath.Join(runDir, f))
			if _, derr := os.Stat(filepath.Join(runDir, result.DiedFileFor(f))); err == nil || derr == nil {
				// A host whose run died before its first tick has no
				// histogram, but its record: the merge names it.
				hosts, files = append(hosts, h.Name), append(files, f)
			}
		}
		if len(files) == 0 {
			continue
		}
		got := r.readRound(runDir, rd.Label, w, stages.MeasuredWindow(p), hosts, files)
		if got == nil {
			continue
		}
		r.Rounds = append(r.Rounds, RoundResult{Label: rd.Label, Flag: rd.Flag, Value: rd.Value, Repeat: rd.Repeat, Result: got.res})
		if r.Result == nil {
			r.Result, r.Series = got.res, got.series
			r.hostFindings(got.hosts)
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

// minJudgedNewOrders is the New-Order count from which a result's
// efficiency is judged (about ±3 %), as the driver's own audit does.
const minJudgedNewOrders = 1000

// ClockFile is where the run keeps its clock probe results.
const ClockFile = probe.ClockFile

// maxVersionLine bounds a version line a host returned ("pg_ctl
// (PostgreSQL) 16.4 (Debian 16.4-1.pgdg120+2)" is 45 bytes).
const maxVersionLine = 120

// VersionLine is a version a host returned (pg_ctl --version's line),
// taken as data: kept only if it is a version line (at most
// maxVersionLine bytes of letters, digits, spaces and . _ ( ) + - ~ : , /),
// else named as not one. Every format then shows it as it is.
func VersionLine(s string) string {
	if s == "" {
		return ""
	}
	ok := len(s) <= maxVersionLine
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" ._()+-~:,/", c)) {
			ok = false
		}
	}
	if !ok {
		return fmt.Sprintf("not a version line (%d bytes)", len(s))
	}
	return s
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
	if err := envelope.WriteFile(filepath.Join(runDir, "report.json"), r); err != nil {
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
	hostPlots := r.plotHosts(runDir)
	md := filepath.Join(runDir, "report.md")
	if err := os.WriteFile(md, []byte(markdown(r, plots, hostPlots)), 0o644); err != nil {
		return "", err
	}
	return md, nil
}
