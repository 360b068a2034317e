package command

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/tpcc"
)

func TestParseWait(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"true", 1, true}, {"false", 0, true}, {"0.01", 0.01, true}, {"1", 1, true},
		{"-1", 0, false}, {"soon", 0, false},
	} {
		got, err := tpcc.ParseWait(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseWait(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseIsolation(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want pgx.TxIsoLevel
		ok   bool
	}{
		{"", "", true}, {"read-committed", pgx.ReadCommitted, true}, {"Repeatable Read", pgx.RepeatableRead, true},
		{"serializable", pgx.Serializable, true}, {"snapshot", "", false},
	} {
		got, err := ParseIsolation(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseIsolation(%q) = %q, %v; want %q ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestRunOutputsValidate(t *testing.T) {
	for _, tc := range []struct {
		o  RunOutputs
		ok bool
	}{
		{RunOutputs{}, true}, {RunOutputs{Ticks: "w.ticks.jsonl"}, true}, {RunOutputs{Ticks: "w.csv"}, true},
		{RunOutputs{Ticks: "w.txt"}, false},
	} {
		if err := tc.o.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v.Validate() = %v; want ok=%v", tc.o, err, tc.ok)
		}
	}
}
