package histogram

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FinalHeader is the header of the totals CockroachDB's `workload run
// tpcc` prints when a run ends (its PostRun hook): one row follows it,
// the elapsed time, tpmC, efc and New-Order's latencies in ms.
const FinalHeader = "_elapsed_______tpmC____efc__avg(ms)__p50(ms)__p90(ms)__p95(ms)__p99(ms)_pMax(ms)"

// FinalLine is that row. Its efc is workload's own figure: 100 × tpmC /
// (12.86 × the warehouses workload divides by), where tpcc merge divides
// by 12.605 × the run's warehouses (tpcc-merge-results' deck factor). The
// v25.4 single-host pages publish this line (160,420.0 tpmC, 96.0 %), the
// multi-host pages the merge.
type FinalLine struct {
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	TpmC           float64 `json:"tpmc"`
	Efficiency     float64 `json:"efficiency_percent"`
	AvgMs          float64 `json:"avg_ms"`
	P50Ms          float64 `json:"p50_ms"`
	P90Ms          float64 `json:"p90_ms"`
	P95Ms          float64 `json:"p95_ms"`
	P99Ms          float64 `json:"p99_ms"`
	MaxMs          float64 `json:"max_ms"`
}

// ErrNoFinalLine says the output holds no totals: the run did not end
// (killed, or still running) or was not `workload run tpcc`.
var ErrNoFinalLine = errors.New("no workload totals line (" + FinalHeader[:24] + "...)")

// maxFinalLine bounds a row: nine numbers.
const maxFinalLine = 256

// ParseFinalLine finds the last FinalHeader in out, a run's output, and
// parses the row after it strictly: nine fields, the first ending in s,
// the third in %, every number finite and not negative. The output comes
// from a remote host: it is read as data, never printed.
//
// fidelity:v20.1/D31
//
// fidelity:v25.4/45
func ParseFinalLine(out []byte) (FinalLine, error) {
	var row string
	found := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	after := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == FinalHeader:
			after, found, row = true, false, ""
		case after:
			row, found, after = line, true, false
		}
	}
	if err := sc.Err(); err != nil {
		return FinalLine{}, fmt.Errorf("workload output: %w", err)
	}
	if !found {
		return FinalLine{}, ErrNoFinalLine
	}
	if len(row) > maxFinalLine {
		return FinalLine{}, fmt.Errorf("workload totals line: %d bytes, want at most %d", len(row), maxFinalLine)
	}
	f := strings.Fields(row)
	if len(f) != 9 {
		return FinalLine{}, fmt.Errorf("workload totals line: %d fields, want 9 (%s)", len(f), FinalHeader)
	}
	el, ok := strings.CutSuffix(f[0], "s")
	if !ok {
		return FinalLine{}, fmt.Errorf("workload totals line: elapsed %q does not end in s", f[0])
	}
	efc, ok := strings.CutSuffix(f[2], "%")
	if !ok {
		return FinalLine{}, fmt.Errorf("workload totals line: efc %q does not end in %%", f[2])
	}
	vals := []string{el, f[1], efc, f[3], f[4], f[5], f[6], f[7], f[8]}
	var n [9]float64
	for i, v := range vals {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || x > 1e12 {
			return FinalLine{}, fmt.Errorf("workload totals line: field %d %q is not a number in [0, 1e12]", i+1, v)
		}
		n[i] = x
	}
	return FinalLine{ElapsedSeconds: n[0], TpmC: n[1], Efficiency: n[2], AvgMs: n[3], P50Ms: n[4], P90Ms: n[5],
		P95Ms: n[6], P99Ms: n[7], MaxMs: n[8]}, nil
}
