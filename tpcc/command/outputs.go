package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result"
)

// ParseIsolation parses an isolation level as --isolation spells it
// ("read-committed", also "read committed"); "" is the server's default.
func ParseIsolation(s string) (pgx.TxIsoLevel, error) {
	switch strings.ToLower(strings.ReplaceAll(s, " ", "-")) {
	case "":
		return "", nil
	case "read-committed":
		return pgx.ReadCommitted, nil
	case "repeatable-read":
		return pgx.RepeatableRead, nil
	case "serializable":
		return pgx.Serializable, nil
	}
	return "", fmt.Errorf("--isolation %q: want read-committed, repeatable-read or serializable", s)
}

// RunOutputs are the files a run writes besides its human output; ""
// means none. Result defaults to the file next to Histograms
// (ResultFileFor).
type RunOutputs struct {
	// Per-tick HdrHistograms, ndjson.
	Histograms string `flag:"histograms" usage:"write per-tick HdrHistograms as ndjson to FILE (CockroachDB's format)" arg:"FILE"`
	// Per-tick figures; format from the extension (TickFormatOf).
	Ticks string `flag:"ticks" usage:"write the periodic lines' figures every --display-every to FILE (benchrig.ticks/v1): JSON lines if it ends in .jsonl or .ndjson, CSV if .csv" arg:"FILE"`
	// The benchrig.result/v1 JSON.
	Result string `flag:"result" usage:"write the result as JSON (benchrig.result/v1) to FILE (default: next to --histograms, workload1.histogram.ndjson -> workload1.result.json)" arg:"FILE"`

	// Prometheus is the address the live metrics are served on while
	// the run goes (LiveMetrics; ":2112" for --prometheus-port 2112).
	Prometheus string
}

// Validate reports a problem with the outputs' names, before anything
// is created or run.
func (o RunOutputs) Validate() error {
	if o.Ticks != "" {
		if _, err := result.TickFormatOf(o.Ticks); err != nil {
			return fmt.Errorf("--ticks: %w", err)
		}
	}
	return nil
}

// RunTo runs the workload as Run does, writing the outputs o names: the
// tick and histogram files while it runs, the result file at the end
// (also for a failed run that produced a result, so the failure is on
// record). A flush error of the histogram file, which comes after the
// run, is reported to errw so that it does not hide the run's own error.
func RunTo(ctx context.Context, cfg tpcc.RunConfig, o RunOutputs, errw io.Writer) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if o.Ticks != "" {
		format, _ := result.TickFormatOf(o.Ticks)
		f, err := os.Create(o.Ticks)
		if err != nil {
			return fmt.Errorf("tpcc run: --ticks: %w", err)
		}
		defer f.Close() // every tick is flushed as it is written
		cfg.Ticks = result.NewTickWriter(f, format)
	}
	if o.Histograms != "" {
		f, err := os.Create(o.Histograms)
		if err != nil {
			return fmt.Errorf("tpcc run: --histograms: %w", err)
		}
		bw := bufio.NewWriter(f)
		cfg.Histograms = bw
		defer func() {
			if err := bw.Flush(); err != nil {
				fmt.Fprintf(errw, "benchrig: --histograms %s: %v\n", o.Histograms, err)
			}
			f.Close()
		}()
	}
	if o.Prometheus != "" {
		live := &result.LiveMetrics{}
		sctx, stop := context.WithCancel(ctx)
		defer stop()
		addr, err := result.ServeLiveMetrics(sctx, o.Prometheus, live)
		if err != nil {
			return fmt.Errorf("tpcc run: %w", err)
		}
		if cfg.Out != nil {
			fmt.Fprintf(cfg.Out, "Serving live metrics (OpenMetrics) at http://%s/metrics\n", addr)
		}
		if cfg.Ticks != nil {
			cfg.Ticks = result.TickSinks{cfg.Ticks, live}
		} else {
			cfg.Ticks = live
		}
	}
	if o.Result == "" && o.Histograms != "" {
		o.Result = result.ResultFileFor(o.Histograms)
	}
	res, err := tpcc.Run(ctx, cfg)
	if res != nil && o.Result != "" {
		if werr := result.WriteResult(o.Result, tpcc.NewResult(cfg, res, err)); werr != nil {
			return fmt.Errorf("tpcc run: --result: %w", werr)
		}
	}
	return err
}

// MergeArgs are `benchrig tpcc merge`'s: workload debug
// tpcc-merge-results' flags and benchrig's --check and --json.
type MergeArgs struct {
	Files      []string
	Warehouses int    `flag:"warehouses" usage:"aggregate active warehouses of all hosts"`
	Check      bool   `flag:"check" usage:"exit 30 unless efficiency >= 85% and every p90 is within its limit; exit 40 if a host's measured run died (a died record names it)"`
	JSON       string `flag:"json" usage:"also write the merged result as JSON (benchrig.result/v1, kind tpcc.merge) to FILE" arg:"FILE"`
	// Window is the run's ramp + duration: a host whose ticks span more
	// (beyond result.WindowSlack) is refused, and the series bounded.
	Window time.Duration `flag:"window" usage:"the run's ramp + duration: refuse a host whose ticks span more (0: unchecked)"`
}

// IncompleteError is a merge --check refuses: a host's measured run died,
// so no figure of the merge covers the whole window.
type IncompleteError struct{ Hosts []result.IncompleteHost }

func (e *IncompleteError) Error() string {
	texts := make([]string, len(e.Hosts))
	for i, h := range e.Hosts {
		texts[i] = h.Text()
	}
	return "tpcc merge: the merge is incomplete, nothing to judge: " + strings.Join(texts, "; ")
}

// Run merges a.Files as MergeTo does; with --check, a merge of a host
// whose measured run died is an *IncompleteError, one that misses the
// efficiency or a p90 limit a *histogram.CheckError.
func (a MergeArgs) Run(w io.Writer) error {
	if len(a.Files) == 0 {
		return &UsageError{errors.New("tpcc merge: no histogram file given")}
	}
	if a.Warehouses < 1 {
		return &UsageError{errors.New("tpcc merge: --warehouses: give the active warehouses of all hosts (at least 1)")}
	}
	m, incomplete, err := MergeWithin(w, a.Warehouses, a.Window, a.JSON, a.Files...)
	switch {
	case err != nil || !a.Check:
		return err
	case len(incomplete) > 0:
		return &IncompleteError{Hosts: incomplete}
	}
	return m.Check()
}

// MergeTo merges the histogram files of several hosts (warehouses is
// their total of active warehouses), prints workload debug
// tpcc-merge-results' summary and table to w, and writes the merged
// result as JSON to jsonPath unless it is "". The merge is returned for
// its Check, with the hosts whose measured run died.
func MergeTo(w io.Writer, warehouses int, jsonPath string, files ...string) (*histogram.Result, []result.IncompleteHost, error) {
	return MergeWithin(w, warehouses, 0, jsonPath, files...)
}

// MergeWithin is MergeTo for a run of a known window (ramp + duration):
// result.MergeFilesWithin.
func MergeWithin(w io.Writer, warehouses int, window time.Duration, jsonPath string, files ...string) (*histogram.Result, []result.IncompleteHost, error) {
	res, m, err := result.MergeFilesWithin(warehouses, window, files...)
	if err != nil {
		return nil, nil, fmt.Errorf("tpcc merge: %w", err)
	}
	for _, h := range res.Incomplete {
		if _, err := fmt.Fprintf(w, "INCOMPLETE: %s\n", h.Text()); err != nil {
			return nil, nil, err
		}
	}
	if err := histogram.WriteMerge(w, m); err != nil {
		return nil, nil, err
	}
	if jsonPath != "" {
		if err := result.WriteResult(jsonPath, res); err != nil {
			return nil, nil, fmt.Errorf("tpcc merge: --json: %w", err)
		}
	}
	return m, res.Incomplete, nil
}
