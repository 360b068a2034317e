package tpcc

import (
	"encoding/json"
	"fmt"
	"io"
)

// ResultVersion is the version of the JSON document of a run's summary
// (`benchrig tpcc run --result FILE`). Readers reject other versions.
const ResultVersion = 1

// ResultJSON is a run's summary as data: what the console's final report
// prints, for reports and merges to read instead of parsing the console.
// The latency histograms themselves stay in the --histograms ndjson
// (CockroachDB's format); this carries what that format cannot: errors,
// retries and the audit.
type ResultJSON struct {
	Version          int           `json:"version"`
	Isolation        string        `json:"isolation"`
	ElapsedSeconds   float64       `json:"elapsed_s"`
	ActiveWarehouses int           `json:"active_warehouses"`
	TpmC             float64       `json:"tpmc"`
	Efficiency       float64       `json:"efficiency_pct"`
	Transactions     []TxnJSON     `json:"transactions"`
	Retries          int64         `json:"retries"`
	RetriesPer1000   float64       `json:"retries_per_1000"`
	Audit            []AuditResult `json:"audit"`
}

// TxnJSON is one transaction type's line of ResultJSON.
type TxnJSON struct {
	Name           string  `json:"name"`
	Count          int64   `json:"count"`
	Errors         int64   `json:"errors"`
	Retries        int64   `json:"retries"`
	RetriesPer1000 float64 `json:"retries_per_1000"`
	GaveUp         int64   `json:"gave_up"` // retry budget exhausted; included in errors
	P50ms          float64 `json:"p50_ms"`
	P90ms          float64 `json:"p90_ms"`
	P99ms          float64 `json:"p99_ms"`
}

// JSON returns the result's summary document.
func (res *RunResult) JSON() ResultJSON {
	out := ResultJSON{
		Version: ResultVersion, Isolation: string(res.Isolation), ElapsedSeconds: res.Elapsed.Seconds(),
		TpmC: res.TpmC, Efficiency: res.Efficiency, Audit: res.Audit,
	}
	if res.Result != nil {
		out.ActiveWarehouses = res.Result.Warehouses
	}
	var done int64
	for t := range numTxnTypes {
		tj := TxnJSON{Name: t.String(), Count: res.Counts[t], Errors: res.Errors[t], Retries: res.Retries[t],
			RetriesPer1000: per1000(res.Retries[t], res.Counts[t]), GaveUp: res.GaveUp[t]}
		if res.Result != nil {
			if h := res.Result.Cumulative[t.String()]; h != nil && h.TotalCount() > 0 {
				tj.P50ms, tj.P90ms, tj.P99ms = ms(h, 50), ms(h, 90), ms(h, 99)
			}
		}
		out.Transactions = append(out.Transactions, tj)
		done += res.Counts[t]
		out.Retries += res.Retries[t]
	}
	out.RetriesPer1000 = per1000(out.Retries, done)
	return out
}

// WriteResultJSON writes the result's summary document, indented.
func WriteResultJSON(w io.Writer, res *RunResult) error {
	b, err := json.MarshalIndent(res.JSON(), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadResultJSON decodes a summary document, rejecting unknown versions
// and fields.
func ReadResultJSON(r io.Reader) (*ResultJSON, error) {
	dec := json.NewDecoder(io.LimitReader(r, 1<<20))
	dec.DisallowUnknownFields()
	var out ResultJSON
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("tpcc result: %w", err)
	}
	if out.Version != ResultVersion {
		return nil, fmt.Errorf("tpcc result: version %d, want %d", out.Version, ResultVersion)
	}
	return &out, nil
}
