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
	"github.com/benchrig/benchrig/orchestrator/plan"
)

// CompareArgs are `benchrig compare`'s: the runs (the first is the
// baseline), the output format and an optional SVG of the latency
// distributions.
type CompareArgs struct {
	Dirs   []string
	Format string `flag:"format" usage:"output FORMAT: text, markdown or json" arg:"FORMAT"`
	JSON   bool   `flag:"json" usage:"same as --format json"`
	SVG    string `flag:"svg" usage:"also draw the latency distributions side by side into FILE" arg:"FILE"`
}

// Compare writes the runs side by side to w.
func Compare(w io.Writer, a CompareArgs) error {
	if len(a.Dirs) < 2 {
		return &UsageError{errors.New("compare: name two or more run directories")}
	}
	if a.JSON {
		a.Format = "json"
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
	Dir          string
	MinTpmC      float64             `flag:"min-tpmc" usage:"fail below N tpmC" arg:"N"`
	MinEff       float64             `flag:"min-efficiency" usage:"fail below PERCENT efficiency" arg:"PERCENT"`
	MaxErrors    int64               `flag:"max-errors" usage:"fail above N transaction errors" arg:"N"`
	MaxErrorsSet bool                `isset:"max-errors"`
	Regression   string              `flag:"max-regression" usage:"fail when tpmC is more than PERCENT below the --against run's (and, with repeats, significantly)" arg:"PERCENT"`
	Against      string              `flag:"against" usage:"the baseline RUN_DIR for --max-regression" arg:"RUN_DIR"`
	Latency      map[string][]string // percentile -> TXN=DURATION
	FlagsSet     bool                // any threshold flag given: they replace the plan's
	Verbose      bool
	Quiet        bool
	Out, ErrOut  io.Writer
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
	if !a.Quiet && len(run.Report.IncompleteHosts()) == 0 {
		// Information, not a threshold: how the run compares with the
		// result its recipe page publishes (report.json's, or the plan
		// copy's for a report written before the plan had one).
		pub := run.Report.Published
		if pub == nil {
			if p, err := runPlan(run.Dir); err == nil && p.Published != nil {
				run.Report.ComparePublished(p)
				pub = run.Report.Published
			}
		}
		if pub != nil {
			fmt.Fprintf(a.Out, "check-result: %s: %s\n", run.Name, pub.Line())
		}
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
	Interval time.Duration `flag:"interval" usage:"time between samples"`
	Duration time.Duration `flag:"duration" usage:"stop after this long (0: until a signal)"`
	Out      string        `flag:"out,o" usage:"append to FILE instead of writing to standard output" arg:"FILE"`
	Host     string        `flag:"host" usage:"host NAME recorded in each sample (default: the hostname)" arg:"NAME"`
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

// ExportArgs are `benchrig export`'s.
type ExportArgs struct {
	Dir    string
	Format string `flag:"format" usage:"output FORMAT: openmetrics" arg:"FORMAT"`
	Out    string `flag:"output,o" usage:"write to FILE instead of standard output" arg:"FILE"`
}

// Export writes a run's final result in the OpenMetrics text format to w,
// or to the file a.Out when it is not "".
func Export(w io.Writer, a ExportArgs) error {
	if a.Format != "openmetrics" {
		return &UsageError{fmt.Errorf("export: --format %q: only openmetrics (report.json is the JSON form)", a.Format)}
	}
	run, err := compare.Load(a.Dir)
	if err != nil {
		return err
	}
	if a.Out == "" {
		return openmetrics.Write(w, run.Report, run.Name)
	}
	f, err := os.Create(a.Out)
	if err != nil {
		return err
	}
	err = openmetrics.Write(f, run.Report, run.Name)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// InvalidPlansError says how many of the plan files plan validate
// checked are invalid (each one's problems were printed as checked).
type InvalidPlansError struct{ Bad, Total int }

func (e *InvalidPlansError) Error() string {
	return fmt.Sprintf("%d of %d plans invalid", e.Bad, e.Total)
}

// ValidatePlans checks every file, whatever the others' result: a line
// per valid plan on out, every problem of the others on errOut. The
// error comes after all were checked: an *InvalidPlansError if a plan is
// invalid, else a *UsageError if a file could not be read at all.
func ValidatePlans(out, errOut io.Writer, files []string, opts plan.Options) error {
	bad, unreadable := 0, 0
	for _, f := range files {
		p, err := LoadPlan(f, opts)
		var ue *UsageError
		switch {
		case errors.As(err, &ue):
			unreadable++
			fmt.Fprintln(errOut, err)
		case err != nil:
			bad++
			fmt.Fprintln(errOut, err)
		default:
			fmt.Fprintf(out, "%s: ok (%s, %d nodes, %d workload hosts, stages %d)\n", f, p.Flavor, len(p.Nodes), len(p.Workload), len(p.Stages))
		}
	}
	if bad > 0 {
		return &InvalidPlansError{Bad: bad, Total: len(files)}
	}
	if unreadable > 0 {
		return &UsageError{fmt.Errorf("%d of %d plan files could not be read", unreadable, len(files))}
	}
	return nil
}

// ShowPlan prints a plan's expanded topology, as text or as JSON
// (benchrig.plan/v1). Looking at a plan does not read its licence.
func ShowPlan(w io.Writer, file string, asJSON bool) error {
	p, err := LoadPlan(file, plan.Options{Unresolved: true})
	if err != nil {
		return err
	}
	if asJSON {
		return ShowJSON(w, p)
	}
	return Show(w, p)
}
