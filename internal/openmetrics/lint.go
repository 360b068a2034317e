package openmetrics

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	// A label value: any characters but an unescaped quote, backslash
	// or line feed.
	labelPair = regexp.MustCompile(`^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"`)
)

// suffixes are the sample-name suffixes each type this encoder writes
// allows.
var suffixes = map[string][]string{
	"gauge":     {""},
	"counter":   {"_total", "_created"},
	"info":      {"_info"},
	"summary":   {"", "_count", "_sum", "_created"},
	"histogram": {"_bucket", "_count", "_sum", "_created"},
}

// Deprecated: use omlint.Lint, which parses with the Prometheus project's
// own OpenMetrics parser. This hand-written checker stays only for
// tpcc/livemetrics_test.go until that test (whose package is being moved
// on another branch) switches to omlint; then this file goes.
//
// Lint applies the OpenMetrics text format rules benchrig's writers must
// meet and returns every breach: the exposition ends with "# EOF\n";
// every family has one TYPE (of a known type) before its samples; UNIT,
// when given, is a suffix of the name; samples of a family are
// contiguous and carry the suffixes its type allows; names and label
// names are valid; label values are escaped; no label name repeats in a
// sample, no label set repeats in a family; values are floats; a
// quantile label only on a summary's quantile samples, an le label only
// on a histogram's buckets, whose counts never fall as le grows and end
// with le="+Inf" equal to _count.
func Lint(text string) []string {
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
	// Per histogram series (its labels without le): the last bucket
	// count and the +Inf count, checked against _count.
	lastBucket := map[string]float64{}
	infBucket := map[string]float64{}
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
		le := ""
		var series []string
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
			if m[1] == "le" {
				if types[cur] != "histogram" || name != cur+"_bucket" {
					bad("le label outside a histogram's buckets")
				}
				le = m[2]
			} else {
				series = append(series, m[0])
			}
			names[m[1]] = true
			labels = strings.TrimPrefix(labels[len(m[0]):], ",")
		}
		if seen[name+"{"+rest] {
			bad("repeated label set")
		}
		seen[name+"{"+rest] = true
		v, err := strconv.ParseFloat(value, 64)
		if err != nil && value != "+Inf" && value != "-Inf" {
			bad("value %q is not a float", value)
		}
		key := strings.Join(series, ",")
		switch {
		case name == cur+"_bucket" && types[cur] == "histogram":
			if le == "" {
				bad("bucket without le")
			}
			if prev, ok := lastBucket[key]; ok && v < prev {
				bad("bucket count falls as le grows")
			}
			lastBucket[key] = v
			if le == "+Inf" {
				infBucket[key] = v
			}
		case name == cur+"_count" && types[cur] == "histogram":
			inf, ok := infBucket[key]
			if !ok {
				bad("histogram _count without a le=\"+Inf\" bucket before it")
			} else if inf != v {
				bad("_count %v differs from the +Inf bucket %v", v, inf)
			}
			delete(lastBucket, key)
		}
	}
	return errs
}
