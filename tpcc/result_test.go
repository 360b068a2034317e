package tpcc

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestResultJSONRoundTrip(t *testing.T) {
	res := fixedResult(t)
	res.Isolation = "serializable"
	res.GaveUp[PaymentTxn] = 1
	var b bytes.Buffer
	if err := WriteResultJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResultJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != ResultVersion || got.Isolation != "serializable" || len(got.Transactions) != int(numTxnTypes) ||
		got.Retries != 30 || got.Transactions[PaymentTxn].GaveUp != 1 || got.Transactions[StockLevelTxn].Retries != 12 ||
		got.ElapsedSeconds != (30*time.Minute).Seconds() || got.ActiveWarehouses != 1000 {
		t.Errorf("round trip: %+v", got)
	}
	for _, bad := range []string{
		`{"version": 2}`,
		`{"version": 1, "surprise": true}`,
		`[1]`,
		``,
	} {
		if _, err := ReadResultJSON(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadResultJSON(%q) accepted", bad)
		}
	}
}

func FuzzReadResultJSON(f *testing.F) {
	f.Add(`{"version":1,"isolation":"serializable","elapsed_s":30,"transactions":[{"name":"newOrder","count":5,"retries":2}],"audit":[{"id":"9.2.2.5.1","status":"PASS","detail":""}]}`)
	f.Add(`{"version":1}`)
	f.Add(`{"version":"1"}`)
	f.Add(`{"version":1,"transactions":[null]}`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ReadResultJSON(strings.NewReader(s))
		if err != nil {
			return
		}
		if r.Version != ResultVersion {
			t.Fatalf("accepted version %d", r.Version)
		}
	})
}
