package openmetrics

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/compare"
)

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	// A label value: any characters but an unescaped quote, backslash
	// or line feed.
	labelPair = regexp.MustCompile(`^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"`)
)

// check applies the OpenMetrics text format rules this writer must meet:
// the exposition ends with "# EOF\n"; every family has one TYPE (of a
// known type) before its samples; UNIT, when given, is a suffix of the
// name; samples of a family are contiguous and carry the suffixes its
// type allows (counter: _total/_created; info: _info; gauge: none);
// names and label names are valid; label values are escaped; no label
// name repeats in a sample, no label set repeats in a family; values are
// floats.
func check(t *testing.T, text string) {
	t.Helper()
	for _, e := range problems(text) {
		t.Error(e)
	}
}

func problems(text string) []string {
	var errs []string
	if !strings.HasSuffix(text, "# EOF\n") || strings.Count(text, "# EOF") != 1 {
		return []string{"exposition does not end with a single # EOF line"}
	}
	lines := strings.Split(strings.TrimSuffix(text, "# EOF\n"), "\n")
	lines = lines[:len(lines)-1] // the text before # EOF ends in \n
	types := map[string]string{}
	done := map[string]bool{}
	cur := ""
	seen := map[string]bool{}
	suffixes := map[string][]string{"gauge": {""}, "counter": {"_total", "_created"}, "info": {"_info"}, "summary": {"", "_count", "_sum", "_created"}}
	for i, line := range lines {
		bad := func(f string, a ...any) {
			errs = append(errs, fmt.Sprintf("line %d %q: %s", i+1, line, fmt.Sprintf(f, a...)))
		}
		if strings.HasPrefix(line, "#") {
			f := strings.SplitN(line, " ", 4)
			if len(f) < 4 || !metricName.MatchString(f[2]) {
				bad("malformed metadata line")
				continue
			}
			switch f[1] {
			case "TYPE":
				if _, ok := suffixes[f[3]]; !ok {
					bad("type %q not used by this writer", f[3])
				}
				if _, dup := types[f[2]]; dup {
					bad("second TYPE for %s", f[2])
				}
				if cur != "" {
					done[cur] = true
				}
				types[f[2]], cur = f[3], f[2]
				seen = map[string]bool{}
			case "UNIT":
				if f[2] != cur || !strings.HasSuffix(f[2], "_"+f[3]) {
					bad("UNIT must follow its TYPE and be the name's suffix")
				}
			case "HELP":
				if f[2] != cur {
					bad("HELP outside its family")
				}
			default:
				bad("unknown metadata %q", f[1])
			}
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		labels, value := "", ""
		if rest != "" {
			j := strings.LastIndex(rest, "} ")
			if j < 0 {
				bad("unterminated labels")
				continue
			}
			labels, value = rest[:j], rest[j+2:]
		} else {
			name, value, _ = strings.Cut(line, " ")
		}
		if !metricName.MatchString(name) {
			bad("bad metric name")
		}
		ok := false
		for _, s := range suffixes[types[cur]] {
			ok = ok || name == cur+s
		}
		if cur == "" || !ok || done[cur] {
			bad("sample outside its family %q (type %s)", cur, types[cur])
		}
		names := map[string]bool{}
		for labels != "" {
			m := labelPair.FindStringSubmatch(labels)
			if m == nil {
				bad("malformed labels at %q", labels)
				break
			}
			if !labelName.MatchString(m[1]) || names[m[1]] {
				bad("bad or repeated label name %q", m[1])
			}
			if m[1] == "quantile" && (types[cur] != "summary" || name != cur) {
				bad("quantile label outside a summary's quantile samples")
			}
			names[m[1]] = true
			labels = strings.TrimPrefix(labels[len(m[0]):], ",")
		}
		if seen[name+"{"+rest] {
			bad("repeated label set")
		}
		seen[name+"{"+rest] = true
		if _, err := strconv.ParseFloat(value, 64); err != nil && value != "+Inf" && value != "-Inf" {
			bad("value %q is not a float", value)
		}
	}
	return errs
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

// The checker must be able to fail.
func TestCheckerRejects(t *testing.T) {
	for _, bad := range []string{
		"# TYPE x gauge\nx 1\n",                         // no EOF
		"x 1\n# EOF\n",                                  // no TYPE
		"# TYPE x counter\nx 1\n# EOF\n",                // counter without _total
		"# TYPE x gauge\nx{a=\"b\"} one\n# EOF\n",       // bad value
		"# TYPE x gauge\nx{a=\"b\",a=\"c\"} 1\n# EOF\n", // repeated label
		"# TYPE x gauge\n# TYPE y gauge\nx 1\n# EOF\n",  // sample outside family
		"# TYPE x_ms gauge\n# UNIT x_ms seconds\nx_ms 1\n# EOF\n",
		"# TYPE x gauge\nx{quantile=\"0.5\"} 1\n# EOF\n",
	} {
		if len(problems(bad)) == 0 {
			t.Errorf("checker accepted %q", bad)
		}
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
