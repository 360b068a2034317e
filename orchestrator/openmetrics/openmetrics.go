package openmetrics

import (
	"io"

	om "github.com/benchrig/benchrig/internal/openmetrics"
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

// Write writes the report's results; run names the run (its directory).
func Write(w io.Writer, r *report.Report, run string) error {
	base := [][2]string{{"plan", r.Plan}, {"run", run}}
	info := om.Family{Name: "benchrig_run", Type: "info", Help: "The run: plan, flavor, benchrig and database versions, start time."}
	info.Samples = append(info.Samples, om.Sample{Suffix: "_info", Value: 1, Labels: append(base[:2:2],
		[2]string{"flavor", r.Flavor}, [2]string{"benchrig_version", r.Benchrig}, [2]string{"database_version", r.Database},
		[2]string{"created", r.Created.UTC().Format("2006-01-02T15:04:05Z")})})
	tpmc := om.Family{Name: "benchrig_tpcc_tpmc", Type: "gauge", Help: "New-Order transactions per minute (tpmC), all workload hosts merged."}
	eff := om.Family{Name: "benchrig_tpcc_efficiency_ratio", Type: "gauge", Unit: "ratio", Help: "tpmC over the maximum of the active warehouses (12.86 or 12.605 per warehouse)."}
	pass := om.Family{Name: "benchrig_tpcc_pass", Type: "gauge", Help: "1 when the result passes TPC-C's efficiency and response-time limits, else 0."}
	wh := om.Family{Name: "benchrig_tpcc_warehouses", Type: "gauge", Help: "Active warehouses the efficiency is computed against."}
	elapsed := om.Family{Name: "benchrig_tpcc_elapsed_seconds", Type: "gauge", Unit: "seconds", Help: "Measured duration of the run."}
	txns := om.Family{Name: "benchrig_tpcc_transactions", Type: "counter", Help: "Completed transactions per type."}
	lat := om.Family{Name: "benchrig_tpcc_latency_seconds", Type: "summary", Unit: "seconds", Help: "Latency quantiles per transaction type (quantile 1 is the maximum); no _sum: the driver's histograms do not keep one."}
	errs := om.Family{Name: "benchrig_tpcc_errors", Type: "counter", Help: "Failed transactions per type."}
	retries := om.Family{Name: "benchrig_tpcc_retries", Type: "counter", Help: "Serialization-failure and deadlock retries per type."}
	for _, rd := range rounds(r) {
		l := append(base[:2:2], [2]string{"round", rd.label})
		res := rd.res
		tpmc.Samples = append(tpmc.Samples, om.Sample{Labels: l, Value: res.TpmC})
		eff.Samples = append(eff.Samples, om.Sample{Labels: l, Value: res.Efficiency / 100})
		pass.Samples = append(pass.Samples, om.Sample{Labels: l, Value: b2f(res.Pass)})
		wh.Samples = append(wh.Samples, om.Sample{Labels: l, Value: float64(res.Warehouses)})
		elapsed.Samples = append(elapsed.Samples, om.Sample{Labels: l, Value: res.Elapsed})
		for _, o := range res.Ops {
			ol := append(l[:len(l):len(l)], [2]string{"operation", o.Name})
			txns.Samples = append(txns.Samples, om.Sample{Suffix: "_total", Labels: ol, Value: float64(o.Count)})
			// Without a transaction of this type there is no latency
			// (the report says 0): only the count is written.
			for _, q := range []struct {
				q  string
				ms float64
			}{{"0.5", o.P50}, {"0.9", o.P90}, {"0.95", o.P95}, {"0.99", o.P99}, {"1", o.Max}} {
				if o.Count == 0 {
					break
				}
				lat.Samples = append(lat.Samples, om.Sample{Labels: append(ol[:len(ol):len(ol)], [2]string{"quantile", q.q}), Value: q.ms / 1000})
			}
			lat.Samples = append(lat.Samples, om.Sample{Suffix: "_count", Labels: ol, Value: float64(o.Count)})
			if o.Errors != nil {
				errs.Samples = append(errs.Samples, om.Sample{Suffix: "_total", Labels: ol, Value: float64(*o.Errors)})
			}
			if o.Retries != nil {
				retries.Samples = append(retries.Samples, om.Sample{Suffix: "_total", Labels: ol, Value: float64(*o.Retries)})
			}
		}
	}
	return om.Write(w, []om.Family{info, tpmc, eff, pass, wh, elapsed, txns, lat, errs, retries})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
