package result

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/runspec"
)

// The kinds of TPC-C result file (docs/schema/result.v1.json).
const (
	// KindRun is one host's `benchrig tpcc run`.
	KindRun = "tpcc.run"
	// KindMerge is `benchrig tpcc merge` over several hosts' histograms.
	KindMerge = "tpcc.merge"
)

// Result is the JSON result of a TPC-C run on one host (KindRun, written
// by `benchrig tpcc run --result`) or of the merge of several hosts'
// histograms (KindMerge, `benchrig tpcc merge --json`). The report and
// later comparisons read these files, never the printed text.
type Result struct {
	envelope.Header

	// Warehouses is the loaded count and ActiveWarehouses the count with
	// terminals over all hosts (run only: a merge knows neither).
	Warehouses       int   `json:"warehouses,omitempty"`
	ActiveWarehouses int   `json:"active_warehouses,omitempty"`
	Partitions       int   `json:"partitions,omitempty"`
	Affinity         []int `json:"partition_affinity,omitempty"`
	// Wait is the keying and think time factor: 1 spec, 0 no wait (run
	// only).
	Wait            *float64 `json:"wait,omitempty"`
	RampSeconds     float64  `json:"ramp_s,omitempty"`
	DurationSeconds float64  `json:"duration_s,omitempty"`
	// StartAt is the common --start-at instant and StartDelayMs how late
	// this host started after it, by its own clock (run only).
	StartAt      *time.Time `json:"start_at,omitempty"`
	StartDelayMs *float64   `json:"start_delay_ms,omitempty"`
	// ReadyAt is when this host's connections were open and warmed, by
	// its own clock, with the start barrier (--ready-file): the start
	// instant was fixed after every host's (run only).
	ReadyAt *time.Time `json:"ready_at,omitempty"`

	// ElapsedSeconds is the measured interval; TpmC its New-Orders per
	// minute; Efficiency is 100 × TpmC / (WarehouseFactor ×
	// EfficiencyWarehouses). A run judges against this host's active
	// warehouses at 12.86 (CockroachDB's `workload run`), a merge against
	// the aggregate at 12.605 (`tpcc-merge-results`).
	ElapsedSeconds       float64 `json:"elapsed_s"`
	TpmC                 float64 `json:"tpmc"`
	Efficiency           float64 `json:"efficiency_percent"`
	EfficiencyWarehouses int     `json:"efficiency_warehouses"`
	WarehouseFactor      float64 `json:"warehouse_factor"`
	// Judged is false when too few New-Orders were measured for the
	// efficiency to mean anything (fewer than 1,000: ±3 %), or when the
	// run was asked for no verdict (--no-verdict: the partitioning run).
	Judged bool `json:"judged"`
	// Pass: a run passed every audit check and was not stopped by an
	// error; a merge met the efficiency and 90th-percentile limits.
	// Failures say why not.
	Pass     bool     `json:"pass"`
	Failures []string `json:"failures,omitempty"`

	// Isolation is the run's transaction isolation level (run only).
	Isolation string `json:"isolation,omitempty"`
	// Retries counts the serialization failures and deadlocks retried
	// over all transaction types, and RetriesPer1000 per 1,000 completed
	// transactions: part of the cost of a tpmC figure (run only).
	Retries        *int64   `json:"retries,omitempty"`
	RetriesPer1000 *float64 `json:"retries_per_1000,omitempty"`
	// RetriesPerTxn is retries per committed transaction, and
	// RetryLostSeconds the time the retried transactions lost to them:
	// failed attempts and backoff sleeps, summed over transactions;
	// RetryLostPercent is its share of all transactions' response times
	// (Σ mean × count). A merge sums its hosts' run results when every
	// host has one.
	RetriesPerTxn    *float64 `json:"retries_per_txn,omitempty"`
	RetryLostSeconds *float64 `json:"retry_lost_s,omitempty"`
	RetryLostPercent *float64 `json:"retry_lost_percent,omitempty"`

	Transactions []Txn        `json:"transactions"`
	Audit        []AuditCheck `json:"audit,omitempty"`
	// Error is what stopped a run early (its figures cover what was
	// measured until then).
	Error string `json:"error,omitempty"`
	// Files are a merge's histogram files, as given.
	Files []string `json:"files,omitempty"`
	// WorkloadFinal are, for a merge, the totals lines CockroachDB's
	// workload printed at the end of each host's run (driver: workload),
	// read from the output kept beside each histogram file: workload's
	// own tpmC and efc (12.86 per warehouse it divides by), which the
	// single-host pages publish, where Efficiency is tpcc merge's (12.605
	// per warehouse of the run). A host whose output has no totals line
	// (its run died) is left out.
	WorkloadFinal []HostFinalLine `json:"workload_final_lines,omitempty"`
	// Incomplete names a merge's hosts whose measured run died before the
	// window's end, with how much of it each covered: the merged figures
	// then count less than the run (the file is benchrig.result/v2).
	Incomplete []IncompleteHost `json:"incomplete,omitempty"`
	// Series is a merge's tpmC per second of the run, all hosts' New-Order
	// ticks binned by the second they end in.
	Series []SeriesPoint `json:"tpmc_series,omitempty"`

	// Profile is the load profile that ran: workload, pipelined or functions (run
	// only). Connections is how many this host opened.
	// WorkloadEfficiency is CockroachDB workload's per-host efc: 100 ×
	// TpmC / (12.86 × ActiveWarehouses of the whole run), where
	// Efficiency divides by this host's own.
	Profile            string   `json:"profile,omitempty"`
	Connections        int      `json:"connections,omitempty"`
	WorkloadEfficiency *float64 `json:"workload_efficiency_percent,omitempty"`
	// ClientProcs is the driver's Go Ps (GOMAXPROCS) over the run (run
	// only; absent when the run left GOMAXPROCS as it found it).
	ClientProcs *ClientProcs `json:"client_procs,omitempty"`
}

// ClientProcs is the driver's GOMAXPROCS over a run: fixed (--procs N:
// Peak and Max are N) or following its CPU use (--procs 0: the most it
// used, of Max, and how often it changed). A driver's CPU per
// transaction depends on it, so a result says which it ran with.
type ClientProcs struct {
	FollowedDemand bool `json:"followed_demand"`
	Peak           int  `json:"peak"`
	Max            int  `json:"max"`
	Changes        int  `json:"changes"`
}

// Txn is one transaction type's figures. Latencies are milliseconds.
type Txn struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	// Errors and Retries are per host in a run; a merge sums its hosts'
	// run results and leaves them null when one is missing.
	Errors  *int64 `json:"errors"`
	Retries *int64 `json:"retries"`
	// GaveUp counts the transactions whose retry budget ran out (also in
	// Errors; run only).
	GaveUp *int64 `json:"gave_up,omitempty"`
	// RetryLostMs is the time this type's retried transactions spent in
	// failed attempts and backoff sleeps, summed, and RetryBackoffMs the
	// sleeping part (run; a merge sums its hosts').
	RetryLostMs    *float64 `json:"retry_lost_ms,omitempty"`
	RetryBackoffMs *float64 `json:"retry_backoff_ms,omitempty"`
	PerSec         float64  `json:"ops_per_sec"`
	Mean           float64  `json:"mean_ms"`
	P50            float64  `json:"p50_ms"`
	P90            float64  `json:"p90_ms"`
	P95            float64  `json:"p95_ms"`
	P99            float64  `json:"p99_ms"`
	Max            float64  `json:"max_ms"`
}

// AuditCheck is one audit check (tpcc's AuditResult) as data.
type AuditCheck struct {
	ID       string   `json:"id"`
	Verdict  string   `json:"verdict"` // PASS, FAIL or SKIP
	Observed *float64 `json:"observed,omitempty"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Unit     string   `json:"unit,omitempty"`
	Detail   string   `json:"detail"`
}

// SeriesPoint is the tpmC of one second of a run.
type SeriesPoint struct {
	Second float64 `json:"t"`
	TpmC   float64 `json:"tpmc"`
}

// ResultFileFor is the default result file of a histogram file:
// workload1.histogram.ndjson -> workload1.result.json (the round label
// stays: workload1.r2.histogram.ndjson -> workload1.r2.result.json);
// another name gets ".result.json" appended.
func ResultFileFor(histograms string) string {
	return siblingOf(histograms, ".result.json")
}

// siblingOf names a file that belongs with a histogram file: its
// histogram suffix replaced by ext, or ext appended to another name.
func siblingOf(histograms, ext string) string {
	stem, _, _ := runspec.HistogramStem(histograms)
	return stem + ext
}

// WorkloadOutputFileFor is where a measured run with CockroachDB's own
// workload (driver: workload) keeps workload's output, beside its
// histogram file: workload1.histogram.json -> workload1.workload.out. Its
// totals line is workload's own figure (histogram.ParseFinalLine).
func WorkloadOutputFileFor(histograms string) string {
	return siblingOf(histograms, ".workload.out")
}

// TicksFileFor is the default per-tick metrics file (`tpcc run --ticks`) of
// a histogram file: workload1.histogram.ndjson -> workload1.ticks.jsonl.
func TicksFileFor(histograms string) string {
	return siblingOf(histograms, ".ticks.jsonl")
}

// MergedFile is the name of a round's merged result (`tpcc merge --json`):
// merged.result.json, or merged.<label>.result.json for a labelled round
// (a repeat or sweep point).
func MergedFile(label string) string {
	if label == "" {
		return "merged.result.json"
	}
	return "merged." + label + ".result.json"
}

// MinEfficiencySample is the New-Order count below which efficiency is
// reported but not judged (±3% at 1,000): a result's Judged, and the
// run's audit (tpcc), which skips its efficiency check below it.
const MinEfficiencySample = 1000

// TxnOf is a transaction type's count and latencies from cumulative
// histograms over elapsed (nil: none measured).
func TxnOf(name string, hr *histogram.Result, elapsed time.Duration) Txn {
	t := Txn{Name: name}
	if hr == nil {
		return t
	}
	h, ok := hr.Cumulative[name]
	if !ok {
		return t
	}
	t.Count = h.TotalCount()
	if elapsed > 0 {
		t.PerSec = float64(t.Count) / elapsed.Seconds()
	}
	t.Mean = h.Mean() / float64(time.Millisecond)
	t.P50, t.P90, t.P95 = ms(h, 50), ms(h, 90), ms(h, 95)
	t.P99, t.Max = ms(h, 99), ms(h, 100)
	return t
}

// MergeFiles merges the histogram files of hosts that ran at the same
// time, by the formulas of `tpcc-merge-results` (histogram.MergeResults),
// against warehouses active warehouses in all. Errors and retries come
// from each file's run result (ResultFileFor) when every host has one.
// It is the one merge: `benchrig tpcc merge` and the report both call it;
// the merged histograms are returned too, for the text of
// histogram.WriteMerge.
func MergeFiles(warehouses int, paths ...string) (*Result, *histogram.Result, error) {
	return MergeFilesWithin(warehouses, 0, paths...)
}

// MergeFilesWithin is MergeFiles for a run whose measured window (ramp +
// duration, from the plan) is known: a host whose ticks span more than
// the window and WindowSlack, or lie after this machine's clock and the
// slack (a run not yet measured), is refused like a malformed file, and
// the merged series has at most one point per second of the window and
// the slack. A window of 0 checks only the clock.
func MergeFilesWithin(warehouses int, window time.Duration, paths ...string) (*Result, *histogram.Result, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("merge: no histogram file")
	}
	var results []*histogram.Result
	var newOrders []histogram.Tick
	var dead []deadHost
	var refused []refusedHost
	all := paths
	paths = nil
	for _, path := range all {
		died, err := ReadDied(path)
		if err != nil {
			return nil, nil, err
		}
		why, err := hostRefusal(path)
		if err != nil {
			return nil, nil, err
		}
		if why != "" {
			refused = append(refused, refusedHost{file: path, why: why})
			continue
		}
		ticks, truncated, err := readTicks(path, died != nil)
		if err != nil && !isHostData(err) {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		var hr *histogram.Result
		if err == nil {
			hr, err = histogram.NewResult(warehouses, ticks)
		}
		if err == nil {
			err = checkRunResult(path)
		}
		if err == nil {
			err = checkWindow(ticks, window, time.Now())
		}
		if err != nil {
			// The host's file is malformed: it is left out, never merged.
			refused = append(refused, refusedHost{file: path, why: "malformed: " + plainReason(err.Error())})
			continue
		}
		paths = append(paths, path)
		if died != nil {
			dead = append(dead, deadHost{died: died, file: path, res: hr, truncated: truncated})
		}
		results = append(results, hr)
		for _, t := range ticks {
			if t.Name == histogram.NewOrder {
				newOrders = append(newOrders, t)
			}
		}
	}
	if len(results) == 0 {
		return nil, nil, &RefusedError{Files: refused}
	}
	m, err := histogram.MergeResults(results...)
	if err != nil {
		return nil, nil, err
	}
	r := &Result{
		Header:         envelope.New(KindMerge),
		ElapsedSeconds: m.Elapsed.Seconds(), TpmC: m.TpmC(), Efficiency: m.Efficiency(),
		EfficiencyWarehouses: warehouses, WarehouseFactor: histogram.DeckWarehouseFactor,
		Judged: m.Count(histogram.NewOrder) >= MinEfficiencySample, Pass: true,
		Files: paths, Series: series(newOrders, window),
	}
	var ce *histogram.CheckError
	if err := m.Check(); errors.As(err, &ce) {
		r.Pass, r.Failures = false, ce.Failures
	}
	r.markIncomplete(dead, results)
	r.WorkloadFinal = workloadFinalLines(paths)
	r.markRefused(refused, dead, results)
	names := histogram.TPCCNames()
	for _, n := range m.Names() {
		if !slices.Contains(names, n) {
			names = append(names, n) // a name only CockroachDB's workload writes
		}
	}
	hc := hostCounters(paths)
	var retries, done int64
	for _, n := range names {
		if _, ok := m.Cumulative[n]; !ok {
			continue
		}
		t := TxnOf(n, m, m.Elapsed)
		if hc != nil {
			e, rt, lost, backoff := hc.errs[n], hc.retries[n], hc.lostMs[n], hc.backoffMs[n]
			t.Errors, t.Retries = &e, &rt
			if hc.costs {
				t.RetryLostMs, t.RetryBackoffMs = &lost, &backoff
			}
			retries += rt
			done += t.Count
		}
		r.Transactions = append(r.Transactions, t)
	}
	if hc != nil {
		per := Per1000(retries, done)
		r.Retries, r.RetriesPer1000 = &retries, &per
		if hc.costs {
			r.SetRetryTotals()
		}
	}
	return r, m, nil
}

// readTicks reads a histogram file; one whose host's run died may be
// missing (it died before its first tick) or end in a cut line.
func readTicks(path string, died bool) (ticks []histogram.Tick, truncated bool, err error) {
	if !died {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, err
		}
		defer f.Close()
		ticks, err := histogram.Decode(f)
		return ticks, false, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return histogram.DecodePartial(data)
}

// deadHost is a merged file whose host's measured run died.
type deadHost struct {
	died      *Died
	file      string
	res       *histogram.Result
	truncated bool
}

// markIncomplete names the dead hosts of a merge with how much of the
// window each covered: its own measured interval against the longest
// interval of a host that ran to the end (or, when every host died, the
// planned window). The merge fails and is written as benchrig.result/v2,
// which a reader that does not know "incomplete" refuses: its figures
// count less than the run and must never pass for the run's.
func (r *Result) markIncomplete(dead []deadHost, all []*histogram.Result) {
	if len(dead) == 0 {
		return
	}
	var window time.Duration
	for _, hr := range all {
		if !slices.ContainsFunc(dead, func(d deadHost) bool { return d.res == hr }) {
			window = max(window, hr.Elapsed)
		}
	}
	if window == 0 {
		for _, d := range dead {
			window = max(window, d.res.Elapsed, time.Duration(d.died.WindowSeconds*float64(time.Second)))
		}
	}
	var fails []string
	for _, d := range dead {
		h := IncompleteHost{Host: d.died.Host, File: d.file, Reason: d.died.Reason,
			CoveredSeconds: d.res.Elapsed.Seconds(), WindowSeconds: window.Seconds(), Truncated: d.truncated}
		if window > 0 {
			h.CoveredPercent = min(100, 100*d.res.Elapsed.Seconds()/window.Seconds())
		}
		r.Incomplete = append(r.Incomplete, h)
		fails = append(fails, "incomplete: "+h.Text())
	}
	r.Header.Schema = envelope.SchemaV2
	r.Pass, r.Failures = false, append(fails, r.Failures...)
}

// Text is the host's line in a failure, a banner or a note: "load1
// killed (SIGKILL), covered 41.2 s of the 60.0 s window (68.7%)".
func (h IncompleteHost) Text() string {
	return fmt.Sprintf("%s %s, covered %.1f s of the %.1f s window (%.1f%%)", h.Host, h.Reason, h.CoveredSeconds, h.WindowSeconds, h.CoveredPercent)
}

// SetRetryTotals sets the retries per committed transaction and the time
// lost to retries from the transactions' figures.
func (r *Result) SetRetryTotals() {
	var retries, done int64
	var lostMs, latencyMs float64
	for _, t := range r.Transactions {
		if t.Retries != nil {
			retries += *t.Retries
		}
		if t.RetryLostMs != nil {
			lostMs += *t.RetryLostMs
		}
		done += t.Count
		latencyMs += t.Mean * float64(t.Count)
	}
	perTxn, lostS, pct := 0.0, lostMs/1000, 0.0
	if done > 0 {
		perTxn = float64(retries) / float64(done)
	}
	if latencyMs > 0 {
		pct = 100 * min(lostMs/latencyMs, 1)
	}
	r.RetriesPerTxn, r.RetryLostSeconds, r.RetryLostPercent = &perTxn, &lostS, &pct
}

// hostSums are the per-host counters of a merge, by transaction name.
type hostSums struct {
	errs, retries     map[string]int64
	lostMs, backoffMs map[string]float64
	costs             bool // every host's result has the retry costs
}

// hostCounters sums the errors, retries and retry costs of the run
// results next to the histogram files; nil unless every file has one.
func hostCounters(paths []string) *hostSums {
	s := &hostSums{errs: map[string]int64{}, retries: map[string]int64{},
		lostMs: map[string]float64{}, backoffMs: map[string]float64{}, costs: true}
	for _, p := range paths {
		hr, err := ReadResult(ResultFileFor(p))
		if err != nil || hr.Kind != KindRun {
			return nil
		}
		for _, t := range hr.Transactions {
			if t.Errors != nil {
				s.errs[t.Name] += *t.Errors
			}
			if t.Retries != nil {
				s.retries[t.Name] += *t.Retries
			}
			if t.RetryLostMs == nil || t.RetryBackoffMs == nil {
				s.costs = false // an older result
				continue
			}
			s.lostMs[t.Name] += *t.RetryLostMs
			s.backoffMs[t.Name] += *t.RetryBackoffMs
		}
	}
	return s
}

// ReadResult reads a TPC-C result file of either kind.
func ReadResult(path string) (*Result, error) {
	var r Result
	if err := envelope.ReadFile(path, &r, KindRun, KindMerge); err != nil {
		return nil, err
	}
	return &r, nil
}

// WriteResult writes r to path (atomically).
func WriteResult(path string, r *Result) error {
	return envelope.WriteFile(path, r)
}

// HostFinalLine is one host's workload totals line and the histogram file
// it belongs with.
type HostFinalLine struct {
	File string `json:"file"`
	histogram.FinalLine
}

// finalLineTail is how much of the end of a run's output is read for its
// totals line (the line and the audit before it take a few kB).
const finalLineTail = 64 << 10

// workloadFinalLines reads the totals line of the workload output kept
// beside each histogram file, when there is one.
//
// fidelity:v20.1/D31
func workloadFinalLines(paths []string) []HostFinalLine {
	var out []HostFinalLine
	for _, p := range paths {
		data, err := readTail(WorkloadOutputFileFor(p), finalLineTail)
		if err != nil {
			continue // no output kept (benchrig's driver), or unreadable
		}
		if l, err := histogram.ParseFinalLine(data); err == nil {
			out = append(out, HostFinalLine{File: p, FinalLine: l})
		}
	}
	return out
}

// readTail reads at most the last n bytes of a regular file.
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if off := fi.Size() - n; off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// Per1000 is n per 1,000 of done (0 when nothing was done): the retries
// per 1,000 transactions of a result and of the console's totals.
func Per1000(n, done int64) float64 {
	if done == 0 {
		return 0
	}
	return 1000 * float64(n) / float64(done)
}

// ms is a latency quantile of h in milliseconds.
func ms(h *hdr.Histogram, q float64) float64 { return histogram.Millis(h.ValueAtQuantile(q)) }
