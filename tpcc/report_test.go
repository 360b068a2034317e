package tpcc

import (
	"bytes"
	"testing"
	"time"

	"github.com/benchrig/benchrig/tpcc/histogram"
	"github.com/benchrig/benchrig/tpcc/result/resulttest"
)

// golden and -update come from schema_test.go (shared within the package).

// fixedResult is a 1,000-warehouse, 30-minute result whose New-Order count
// gives the 1k recipe's published 12,474.4 tpmC and 97.0% efficiency.
func fixedResult(t *testing.T) *RunResult {
	t.Helper()
	el := 30 * time.Minute
	res := &RunResult{Elapsed: el, Result: &histogram.Result{Warehouses: 1000, Elapsed: el, Cumulative: map[string]*hdrHistogram{}}}
	counts := [numTxnTypes]int64{374232, 374000, 37400, 37410, 37390}
	lat := [numTxnTypes]time.Duration{24 * time.Millisecond, 12 * time.Millisecond, 5 * time.Millisecond, 60 * time.Millisecond, 30 * time.Millisecond}
	for ty := range numTxnTypes {
		h := histogram.NewHistogram()
		for i := int64(0); i < 10; i++ { // a spread: 1× .. 10× the base latency
			if err := h.RecordValues(int64(lat[ty])*(i+1), counts[ty]/10); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.RecordValues(int64(lat[ty]), counts[ty]%10); err != nil {
			t.Fatal(err)
		}
		res.Result.Cumulative[ty.String()] = h
		res.Counts[ty] = counts[ty]
		res.Retries[ty] = int64(ty) * 3
		res.RetryWork[ty] = time.Duration(ty) * 40 * time.Millisecond
		res.RetryBackoff[ty] = time.Duration(ty) * 10 * time.Millisecond
	}
	res.Errors[PaymentTxn] = 2
	res.TpmC = float64(res.Counts[NewOrderTxn]) / el.Minutes()
	res.Efficiency = 100 * res.TpmC / (histogram.SpecWarehouseFactor * 1000)
	return res
}

// fixedAudit is the 1k recipe's audit of res: every check passes but
// 9.2.2.5.4, for warehouse 17 never paid remotely.
func fixedAudit(res *RunResult) []AuditResult {
	c := newCounters(1000)
	c.noRollbacks.Store(3750)
	c.noLines.Store(3742320)
	for n := 5; n <= 15; n++ {
		c.noOLCnt[n].Store(374232 / 11)
	}
	c.noRemoteLines.Store(37400)
	for w := range 1000 { // w_id 0..999
		c.remoteLineW.set(w)
		if w != 17 {
			c.remotePayW.set(w)
		}
	}
	c.payRemote.Store(56100)
	c.payByName.Store(224400)
	c.osByName.Store(22440)
	c.delSkipped.Store(3)
	return audit(c, res, 1000, 1)
}

func TestFinalReportGolden(t *testing.T) {
	res := fixedResult(t)
	res.Audit = fixedAudit(res)
	got := formatFinal(res)
	golden(t, "final_report", got)
	if !bytes.Contains([]byte(got), []byte(" 12474.4  97.0%")) {
		t.Errorf("tpmC line does not read 12474.4 at 97.0%%:\n%s", got)
	}
}

// TestProgressGolden: the console's periodic lines, formatted from the
// fixed ticks the --ticks goldens are written from (ticks_test.go).
func TestProgressGolden(t *testing.T) {
	var out bytes.Buffer
	r := newReporter(&out)
	for _, ts := range resulttest.FixedTicks(t) {
		r.progress(ts)
	}
	golden(t, "progress", out.String())
}

func TestAuditSkipsAndFails(t *testing.T) {
	res := fixedResult(t)
	// Too few transactions: every ratio check is skipped, never failed.
	small := *res
	small.Counts = [numTxnTypes]int64{100, 100, 10, 10, 10}
	for _, a := range audit(newCounters(1000), &small, 1000, 1) {
		if a.ID[0] == '9' && a.Status != AuditSkip {
			t.Errorf("%s with 100 new orders: %s, want SKIP", a.ID, a.Status)
		}
	}
	// A 2% rollback rate fails 9.2.2.5.1.
	c := newCounters(1000)
	c.noRollbacks.Store(2 * res.Counts[NewOrderTxn] / 100)
	found := false
	for _, a := range audit(c, res, 1000, 1) {
		if a.ID == "9.2.2.5.1" {
			found = true
			if a.Status != AuditFail {
				t.Errorf("2%% rollbacks: %s", a)
			}
		}
	}
	if !found {
		t.Error("no 9.2.2.5.1 check")
	}
}
