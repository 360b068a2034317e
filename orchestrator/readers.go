package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/benchrig/benchrig/orchestrator/compare"
	"github.com/benchrig/benchrig/orchestrator/gate"
	"github.com/benchrig/benchrig/orchestrator/hostmetrics"
	"github.com/benchrig/benchrig/orchestrator/openmetrics"
)

// CompareArgs are `benchrig compare`'s: the runs (the first is the
// baseline), the output format and an optional SVG of the latency
// distributions.
type CompareArgs struct {
	Dirs   []string
	Format string // text, markdown or json
	SVG    string
}

// Compare writes the runs side by side to w.
func Compare(w io.Writer, a CompareArgs) error {
	if len(a.Dirs) < 2 {
		return &UsageError{errors.New("compare: name two or more run directories")}
	}
	if !slices.Contains(compare.Formats, a.Format) {
		return &UsageError{fmt.Errorf("compare: --format %q: use text, markdown or json", a.Format)}
	}
	var runs []*compare.Run
	for _, dir := range a.Dirs {
		r, err := compare.Load(dir)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	cmp, err := compare.Compare(runs...)
	if err != nil {
		return err
	}
	if a.SVG != "" {
		f, err := os.Create(a.SVG)
		if err != nil {
			return err
		}
		err = compare.PlotCDF(f, cmp, runs)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("compare: %s: %w", a.SVG, err)
		}
	}
	return compare.Write(w, cmp, a.Format)
}

// CheckResultArgs are `benchrig check-result`'s: the run, the threshold
// flags as given, and the baseline of --max-regression.
type CheckResultArgs struct {
	Dir                 string
	MinTpmC, MinEff     float64
	MaxErrors           int64
	MaxErrorsSet        bool
	Latency             map[string][]string // percentile -> TXN=DURATION
	Regression, Against string
	FlagsSet            bool // any threshold flag given: they replace the plan's
	Verbose, Quiet      bool
	Out, ErrOut         io.Writer
}

// thresholds parses the flags; a bad one is a *UsageError.
func (a CheckResultArgs) thresholds() (gate.Thresholds, error) {
	t := gate.Thresholds{MinTpmC: a.MinTpmC, MinEfficiency: a.MinEff}
	for _, p := range gate.Percentiles {
		for _, v := range a.Latency[p] {
			l, err := gate.ParseLatencyLimit(p, v)
			if err != nil {
				return t, &UsageError{fmt.Errorf("check-result: --max-%s: %w", p, err)}
			}
			t.Latency = append(t.Latency, l)
		}
	}
	if a.MaxErrorsSet {
		if a.MaxErrors < 0 {
			return t, &UsageError{errors.New("check-result: --max-errors must not be negative")}
		}
		t.MaxErrors = &a.MaxErrors
	}
	if a.Regression != "" {
		v, err := gate.ParsePercent(a.Regression)
		if err != nil {
			return t, &UsageError{fmt.Errorf("check-result: --max-regression: %w", err)}
		}
		t.MaxRegressionPercent = v
		if a.Against == "" {
			return t, &UsageError{errors.New("check-result: --max-regression needs --against RUN_DIR")}
		}
	}
	return t, nil
}

// CheckResult gates a run on the thresholds of the flags or, without
// any, those of the plan the run ran; a missed one is a
// *gate.FailedError naming every miss.
func CheckResult(a CheckResultArgs) error {
	t, err := a.thresholds()
	if err != nil {
		return err
	}
	run, err := compare.Load(a.Dir)
	if err != nil {
		return err
	}
	if !a.FlagsSet {
		pt, err := PlanThresholds(run.Dir)
		if err != nil {
			return err
		}
		if pt == nil {
			return &UsageError{errors.New("check-result: no thresholds: give flags (--min-tpmc, --max-p95, ...) or add a thresholds: section to the plan")}
		}
		t = *pt
	}
	var base *compare.Run
	if a.Against != "" {
		if base, err = compare.Load(a.Against); err != nil {
			return err
		}
	}
	passed, err := gate.Evaluate(run, t, base)
	if a.Verbose {
		for _, p := range passed {
			fmt.Fprintf(a.ErrOut, "check-result: ok: %s\n", p)
		}
	}
	if err != nil {
		return err
	}
	if !a.Quiet {
		fmt.Fprintf(a.Out, "check-result: %s meets every threshold\n", run.Name)
	}
	return nil
}

// HostStatArgs are `benchrig hoststat`'s.
type HostStatArgs struct {
	Interval, Duration time.Duration
	Out                string // append to this file; "": w
	Host               string // "": the hostname
}

// HostStat samples this host every Interval as JSON lines to w (or Out)
// until ctx ends (a signal: the samples are complete, no error) or
// Duration has passed.
func HostStat(ctx context.Context, w io.Writer, a HostStatArgs) error {
	if a.Interval < 10*time.Millisecond || a.Interval > time.Hour {
		return &UsageError{fmt.Errorf("hoststat: --interval %s: from 10ms to 1h", a.Interval)}
	}
	if a.Duration < 0 {
		return &UsageError{errors.New("hoststat: --duration must not be negative")}
	}
	if a.Host == "" {
		a.Host, _ = os.Hostname()
	}
	sctx := ctx
	if a.Duration > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, a.Duration)
		defer cancel()
	}
	if a.Out != "" {
		f, err := os.OpenFile(a.Out, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	err := (&hostmetrics.Sampler{Host: a.Host}).Run(sctx, a.Interval, w)
	if err == nil && ctx.Err() != nil {
		return nil // stopped by a signal: the samples are complete
	}
	return err
}

// Export writes a run's final result in the OpenMetrics text format to w,
// or to the file out when it is not "".
func Export(w io.Writer, dir, format, out string) error {
	if format != "openmetrics" {
		return &UsageError{fmt.Errorf("export: --format %q: only openmetrics (report.json is the JSON form)", format)}
	}
	run, err := compare.Load(dir)
	if err != nil {
		return err
	}
	if out == "" {
		return openmetrics.Write(w, run.Report, run.Name)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	err = openmetrics.Write(f, run.Report, run.Name)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
