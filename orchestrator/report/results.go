package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/probe"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// This file reads the drivers' result files (benchrig.result/v1) of a
// run directory; nothing here reads text a driver printed.

// MergedFile is where the merge stage's `benchrig tpcc merge --json`
// leaves a round's merged result, relative to the run directory. The
// report uses it when it covers exactly the round's collected histogram
// files and is newer than each; otherwise it merges them itself, with the
// same function (result.MergeFiles).
func MergedFile(label string) string { return "results/" + result.MergedFile(label) }

// round is one measured run as read from its files.
type round struct {
	res    *Result
	series []TickPoint
	hosts  []hostRun
}

// hostRun is one workload host's own result file of a round.
type hostRun struct {
	host string
	res  *result.Result
}

// readRound merges a round's histogram files (paths relative to runDir)
// and reads each host's run result next to its histogram file.
//
// fidelity:v20.1/D26
func (r *Report) readRound(runDir, label string, w int, window time.Duration, hosts, files []string) *round {
	merged, err := readMerged(runDir, label, w, files)
	if err != nil {
		abs := make([]string, len(files))
		for i, f := range files {
			abs[i] = filepath.Join(runDir, f)
		}
		merged, _, err = result.MergeFilesWithin(w, window, abs...)
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			return nil
		}
		for k, h := range merged.Incomplete {
			if i := slices.Index(abs, h.File); i >= 0 {
				merged.Incomplete[k].File = files[i]
			}
		}
	}
	rd := &round{res: fromMerged(merged, mergedFiles(files, merged)), series: make([]TickPoint, 0, len(merged.Series))}
	rd.res.Unverified = filesHosts(rd.res.Files)
	for _, l := range merged.WorkloadFinal {
		i := slices.Index(files, l.File)
		if i < 0 {
			i = slices.Index(files, relTo(runDir, l.File))
		}
		if i < 0 {
			continue
		}
		rd.res.WorkloadFinal = append(rd.res.WorkloadFinal, WorkloadFinal{Host: hosts[i], File: files[i], Elapsed: l.ElapsedSeconds,
			TpmC: l.TpmC, Efficiency: l.Efficiency, P90: l.P90Ms, P95: l.P95Ms})
	}
	for _, s := range merged.Series {
		rd.series = append(rd.series, TickPoint(s))
	}
	for i, f := range files {
		if slices.ContainsFunc(merged.Incomplete, func(h result.IncompleteHost) bool { return h.Refused && h.File == f }) {
			continue // its files were refused: nothing it sent is shown
		}
		path := result.ResultFileFor(f)
		hr, err := result.ReadResult(filepath.Join(runDir, path))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a driver older than result files, or a run stopped before writing it
		}
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			continue
		}
		rd.hosts = append(rd.hosts, hostRun{host: hosts[i], res: hr})
		h := HostRun{Host: hosts[i], File: path, TpmC: hr.TpmC, Efficiency: hr.Efficiency,
			StartDelayMs: hr.StartDelayMs, Pass: hr.Pass, Failures: hr.Failures, Error: hr.Error, Profile: hr.Profile}
		if hr.ActiveWarehouses > 0 {
			// workload run's own per-host efc divides by every active
			// warehouse of the run (tpcc.go's PostRun), not the host's.
			we := 100 * hr.TpmC / (histogram.SpecWarehouseFactor * float64(hr.ActiveWarehouses))
			h.WorkloadEfficiency = &we
		}
		rd.res.Hosts = append(rd.res.Hosts, h)
	}
	return rd
}

// readMerged is the merge stage's result of a round if it is the merge of
// exactly files, against w warehouses, and newer than each of them.
func readMerged(runDir, label string, w int, files []string) (*result.Result, error) {
	path := filepath.Join(runDir, MergedFile(label))
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	m, err := result.ReadResult(path)
	if err != nil {
		return nil, err
	}
	if m.Kind != result.KindMerge || m.EfficiencyWarehouses != w || !slices.Equal(sorted(m.Files), sorted(files)) {
		return nil, fmt.Errorf("%s: not the merge of this round's files", path)
	}
	for _, f := range files {
		if hf, err := os.Stat(filepath.Join(runDir, f)); err != nil || hf.ModTime().After(fi.ModTime()) {
			return nil, fmt.Errorf("%s: older than %s", path, f)
		}
	}
	return m, nil
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// fromMerged is the report's view of a merged result.
func fromMerged(m *result.Result, files []string) *Result {
	res := &Result{Warehouses: m.EfficiencyWarehouses, Elapsed: m.ElapsedSeconds, TpmC: m.TpmC, Efficiency: m.Efficiency,
		Pass: m.Pass, Judged: m.Judged, Failures: m.Failures, Files: files, Ops: []Op{},
		RetriesPerTxn: m.RetriesPerTxn, RetryLostSeconds: m.RetryLostSeconds, RetryLostPercent: m.RetryLostPercent,
		Incomplete: m.Incomplete}
	for _, t := range m.Transactions {
		res.Ops = append(res.Ops, Op{Name: t.Name, Count: t.Count, PerSec: t.PerSec, Errors: t.Errors, Retries: t.Retries, RetryLostMs: t.RetryLostMs,
			P50: t.P50, P90: t.P90, P95: t.P95, P99: t.P99, Max: t.Max})
	}
	return res
}

// hostFindings sets the audit checks and the start skew of the report's
// run from the hosts' result files.
func (r *Report) hostFindings(hosts []hostRun) {
	skew := &Skew{PerHost: map[string]float64{}}
	for _, h := range hosts {
		if len(h.res.Audit) > 0 {
			r.Audit = append(r.Audit, HostAudit{Host: h.host, Checks: h.res.Audit})
		}
		if d := h.res.StartDelayMs; d != nil {
			skew.PerHost[h.host] = *d
		}
		if at := h.res.ReadyAt; at != nil {
			if skew.ReadyAt == nil {
				skew.ReadyAt = map[string]time.Time{}
			}
			skew.ReadyAt[h.host] = *at
			skew.StartAt = h.res.StartAt
		}
	}
	if len(skew.PerHost) == 0 {
		return
	}
	var early, late time.Time
	for _, at := range skew.ReadyAt {
		if early.IsZero() || at.Before(early) {
			early = at
		}
		if late.IsZero() || at.After(late) {
			late = at
		}
	}
	skew.ReadySpread = float64(late.Sub(early)) / float64(time.Millisecond)
	first := true
	var lo, hi float64
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

// readClock takes the clock probes: a benchrig.result/v1 "clock" file, or
// the bare list of offsets that earlier versions wrote.
func (r *Report) readClock(runDir string) {
	data, err := os.ReadFile(filepath.Join(runDir, ClockFile))
	if err != nil {
		return
	}
	if strings.HasPrefix(strings.TrimSpace(string(data)), "[") {
		if err := json.Unmarshal(data, &r.Clock); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", ClockFile, err))
		}
		return
	}
	var c probe.Clock
	if err := envelope.Decode(data, &c, probe.KindClock); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("%s: %v", ClockFile, err))
		return
	}
	for _, h := range c.Hosts {
		r.Clock = append(r.Clock, ClockOffset{Host: h.Host, OffsetMs: h.OffsetMs, RTTMs: h.RTTMs})
	}
}

// readDisks takes each host's preflight disk benchmark, where preflight
// left one.
func (r *Report) readDisks(runDir string, p *plan.Plan) {
	var names []string
	for _, h := range p.Nodes {
		names = append(names, h.Name)
	}
	for _, h := range p.Workload {
		names = append(names, h.Name)
	}
	for _, name := range names {
		var f probe.Fio
		err := envelope.ReadFile(filepath.Join(runDir, "results", name, probe.FioFile), &f, probe.KindFio)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			continue
		}
		r.Disks = append(r.Disks, Disk{Host: name, Path: f.Path, Status: f.Status,
			ReadIOPS: f.ReadIOPS, WriteIOPS: f.WriteIOPS, ReadKiBps: f.ReadKiBps, WriteKiBps: f.WriteKiBps})
	}
}

// relTo is path relative to dir, or path when it is not under dir.
func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// mergedFiles is files without those of hosts the merge refused.
func mergedFiles(files []string, m *result.Result) []string {
	var out []string
	for _, f := range files {
		if !slices.ContainsFunc(m.Incomplete, func(h result.IncompleteHost) bool { return h.Refused && h.File == f }) {
			out = append(out, f)
		}
	}
	return out
}

// filesHosts is the hosts of merged files (results/<host>/...), sorted,
// each once; a file elsewhere is named by its path.
func filesHosts(files []string) []string {
	var hosts []string
	for _, f := range files {
		h := f
		if rest, ok := strings.CutPrefix(filepath.ToSlash(f), "results/"); ok {
			h, _, _ = strings.Cut(rest, "/")
		}
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	return slices.Compact(hosts)
}
