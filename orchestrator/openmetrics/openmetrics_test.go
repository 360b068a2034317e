package openmetrics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/internal/openmetrics/omlint"
	"github.com/benchrig/benchrig/orchestrator/compare"
)

// check parses what Write wrote with the Prometheus project's OpenMetrics
// parser (internal/openmetrics/omlint).
func check(t *testing.T, text string) {
	t.Helper()
	for _, e := range omlint.Lint(text) {
		t.Error(e)
	}
}

func TestWrite(t *testing.T) {
	for _, name := range []string{"runA", "single"} {
		r, err := compare.Load("../compare/testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, r.Report, r.Name); err != nil {
			t.Fatal(err)
		}
		check(t, buf.String())
		golden.Check(t, name+".om", buf.Bytes())
	}
}

// Label values cross into another format: quotes, backslashes and line
// feeds are escaped, and the result still parses.
func TestWriteEscapes(t *testing.T) {
	r, _ := compare.Load("../compare/testdata/single")
	r.Report.Plan = "a \"quoted\" \\ plan\nwith a line feed"
	var buf bytes.Buffer
	if err := Write(&buf, r.Report, `run"1`); err != nil {
		t.Fatal(err)
	}
	check(t, buf.String())
	if !strings.Contains(buf.String(), `plan="a \"quoted\" \\ plan\nwith a line feed",run="run\"1"`) {
		t.Errorf("label values not escaped:\n%s", buf.String())
	}
}

// A database version a host returned at install (as pg_ctl --version
// answers) reaches export as text: no ESC, BEL or bidi override in the
// exposition, which still parses. Without termsafe in the encoder's
// escape the ESC sequences came out raw.
func TestWriteHostVersionIsText(t *testing.T) {
	r, _ := compare.Load("../compare/testdata/single")
	r.Report.Database = "pg_ctl (PostgreSQL) 16.4\x1b]8;;http://x\a\x1b[2J\u202e<img src=x>"
	var buf bytes.Buffer
	if err := Write(&buf, r.Report, "single"); err != nil {
		t.Fatal(err)
	}
	check(t, buf.String())
	if strings.ContainsAny(buf.String(), "\x1b\a\u202e") {
		t.Errorf("export carries the host's control characters raw:\n%q", buf.String())
	}
	if !strings.Contains(buf.String(), `database_version="pg_ctl (PostgreSQL) 16.4\\x1b]8;;http://x\\a\\x1b[2J\\u202e<img src=x>"`) {
		t.Errorf("the version is not shown as text:\n%s", buf.String())
	}
}

func TestWriteEmptyOperation(t *testing.T) {
	r, _ := compare.Load("../compare/testdata/single")
	r.Report.Result.Ops[4].Count = 0
	var buf bytes.Buffer
	if err := Write(&buf, r.Report, "single"); err != nil {
		t.Fatal(err)
	}
	check(t, buf.String())
	if strings.Contains(buf.String(), `operation="stockLevel",quantile=`) || !strings.Contains(buf.String(), `benchrig_tpcc_latency_seconds_count{plan="local",run="single",round="run",operation="stockLevel"} 0`) {
		t.Errorf("empty stockLevel:\n%s", buf.String())
	}
}
