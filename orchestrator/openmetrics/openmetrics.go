package openmetrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/orchestrator/report"
)

// round is one measured result and its label.
type round struct {
	label string
	res   *report.Result
}

func rounds(r *report.Report) []round {
	if len(r.Rounds) == 0 {
		if r.Result == nil {
			return nil
		}
		return []round{{"run", r.Result}}
	}
	var out []round
	for _, rd := range r.Rounds {
		if rd.Result != nil {
			out = append(out, round{rd.Label, rd.Result})
		}
	}
	return out
}

// family is one metric family: its samples are written together.
type family struct {
	name, typ, unit, help string
	samples               []sample
}

type sample struct {
	suffix string // "_total" for counters, "_info" for info
	labels [][2]string
	value  float64
}

// Write writes the report's results; run names the run (its directory).
func Write(w io.Writer, r *report.Report, run string) error {
	base := [][2]string{{"plan", r.Plan}, {"run", run}}
	info := family{name: "benchrig_run", typ: "info", help: "The run: plan, flavor, benchrig and database versions, start time."}
	info.samples = append(info.samples, sample{suffix: "_info", value: 1, labels: append(base[:2:2],
		[2]string{"flavor", r.Flavor}, [2]string{"benchrig_version", r.Benchrig}, [2]string{"database_version", r.Database},
		[2]string{"created", r.Created.UTC().Format("2006-01-02T15:04:05Z")})})
	tpmc := family{name: "benchrig_tpcc_tpmc", typ: "gauge", help: "New-Order transactions per minute (tpmC), all workload hosts merged."}
	eff := family{name: "benchrig_tpcc_efficiency_ratio", typ: "gauge", unit: "ratio", help: "tpmC over the maximum of the active warehouses (12.86 or 12.605 per warehouse)."}
	pass := family{name: "benchrig_tpcc_pass", typ: "gauge", help: "1 when the result passes TPC-C's efficiency and response-time limits, else 0."}
	wh := family{name: "benchrig_tpcc_warehouses", typ: "gauge", help: "Active warehouses the efficiency is computed against."}
	elapsed := family{name: "benchrig_tpcc_elapsed_seconds", typ: "gauge", unit: "seconds", help: "Measured duration of the run."}
	txns := family{name: "benchrig_tpcc_transactions", typ: "counter", help: "Completed transactions per type."}
	lat := family{name: "benchrig_tpcc_latency_seconds", typ: "summary", unit: "seconds", help: "Latency quantiles per transaction type (quantile 1 is the maximum); no _sum: the driver's histograms do not keep one."}
	errs := family{name: "benchrig_tpcc_errors", typ: "counter", help: "Failed transactions per type."}
	retries := family{name: "benchrig_tpcc_retries", typ: "counter", help: "Serialization-failure and deadlock retries per type."}
	for _, rd := range rounds(r) {
		l := append(base[:2:2], [2]string{"round", rd.label})
		res := rd.res
		tpmc.samples = append(tpmc.samples, sample{labels: l, value: res.TpmC})
		eff.samples = append(eff.samples, sample{labels: l, value: res.Efficiency / 100})
		pass.samples = append(pass.samples, sample{labels: l, value: b2f(res.Pass)})
		wh.samples = append(wh.samples, sample{labels: l, value: float64(res.Warehouses)})
		elapsed.samples = append(elapsed.samples, sample{labels: l, value: res.Elapsed})
		for _, o := range res.Ops {
			ol := append(l[:len(l):len(l)], [2]string{"operation", o.Name})
			txns.samples = append(txns.samples, sample{suffix: "_total", labels: ol, value: float64(o.Count)})
			// Without a transaction of this type there is no latency
			// (the report says 0): only the count is written.
			for _, q := range []struct {
				q  string
				ms float64
			}{{"0.5", o.P50}, {"0.9", o.P90}, {"0.95", o.P95}, {"0.99", o.P99}, {"1", o.Max}} {
				if o.Count == 0 {
					break
				}
				lat.samples = append(lat.samples, sample{labels: append(ol[:len(ol):len(ol)], [2]string{"quantile", q.q}), value: q.ms / 1000})
			}
			lat.samples = append(lat.samples, sample{suffix: "_count", labels: ol, value: float64(o.Count)})
			if o.Errors != nil {
				errs.samples = append(errs.samples, sample{suffix: "_total", labels: ol, value: float64(*o.Errors)})
			}
			if o.Retries != nil {
				retries.samples = append(retries.samples, sample{suffix: "_total", labels: ol, value: float64(*o.Retries)})
			}
		}
	}
	bw := bufio.NewWriter(w)
	for _, f := range []family{info, tpmc, eff, pass, wh, elapsed, txns, lat, errs, retries} {
		if len(f.samples) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n", f.name, f.typ)
		if f.unit != "" {
			fmt.Fprintf(bw, "# UNIT %s %s\n", f.name, f.unit)
		}
		fmt.Fprintf(bw, "# HELP %s %s\n", f.name, escapeHelp(f.help))
		for _, s := range f.samples {
			bw.WriteString(f.name + s.suffix)
			if len(s.labels) > 0 {
				bw.WriteByte('{')
				for i, l := range s.labels {
					if i > 0 {
						bw.WriteByte(',')
					}
					bw.WriteString(l[0] + `="` + escapeLabel(l[1]) + `"`)
				}
				bw.WriteByte('}')
			}
			bw.WriteString(" " + formatValue(s.value) + "\n")
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// escapeLabel escapes a label value: backslash, double quote and line
// feed, the three characters the format gives a meaning to there.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// escapeHelp escapes HELP text: backslash, double quote and line feed.
func escapeHelp(s string) string { return escapeLabel(s) }

func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
