package omlint

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Lint parses an exposition with the Prometheus project's own OpenMetrics
// 1.0 parser (github.com/prometheus/common/expfmt: the specification's
// ABNF grammar plus its semantic rules: one # EOF at the end, one TYPE
// per family before its samples, the suffixes each type allows,
// contiguous families, UNIT a suffix of the name, valid names, escaped
// label values, no repeated label name, float values, le on buckets and
// quantile on summaries) and returns the first breach it reports. Over
// the families it decodes, Lint then checks what the parser leaves to
// the writer: every family has a TYPE and samples (benchrig's writer
// leaves empty families out), no label set repeats in a family, le and
// quantile appear
// only where their type gives them meaning, and a histogram's bucket
// counts never fall as le grows and end with le="+Inf" equal to _count.
func Lint(text string) []string {
	text, info := infoAsGauge(text)
	dec := expfmt.NewDecoder(strings.NewReader(text), expfmt.FmtOpenMetrics_1_0_0)
	var errs []string
	n := 0
	decoded := map[string]bool{}
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(errs, err.Error())
		}
		errs = append(errs, family(&mf)...)
		if info[mf.GetName()] {
			for _, m := range mf.GetMetric() {
				if m.GetGauge().GetValue() != 1 {
					errs = append(errs, fmt.Sprintf("family %s: info value %v, not 1", mf.GetName(), m.GetGauge().GetValue()))
				}
			}
		}
		// expfmt names a counter family by its _total sample (and an
		// info family by its _info one); the TYPE line has the bare name.
		decoded[mf.GetName()] = true
		decoded[strings.TrimSuffix(strings.TrimSuffix(mf.GetName(), "_total"), "_info")] = true
		n++
	}
	if n == 0 {
		errs = append(errs, "no metric family")
	}
	// The parser drops a family that has a TYPE but no samples, and then
	// takes the next family's samples after its TYPE for the one before
	// ("# TYPE x gauge\n# TYPE y gauge\nx 1"). benchrig's writer leaves
	// empty families out, so every TYPE line must come back as a family.
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && !decoded[f[2]] {
			errs = append(errs, fmt.Sprintf("family %s: no samples", f[2]))
		}
	}
	return errs
}

// family checks one decoded family for the rules the parser does not
// enforce.
func family(mf *dto.MetricFamily) []string {
	var errs []string
	bad := func(f string, a ...any) {
		errs = append(errs, fmt.Sprintf("family %s: %s", mf.GetName(), fmt.Sprintf(f, a...)))
	}
	if mf.GetType() == dto.MetricType_UNTYPED {
		bad("no TYPE line (unknown type)")
	}
	seen := map[string]bool{}
	for _, m := range mf.GetMetric() {
		var set []string
		for _, l := range m.GetLabel() {
			set = append(set, l.GetName()+"="+strconv.Quote(l.GetValue()))
			switch {
			case l.GetName() == "le" && mf.GetType() != dto.MetricType_HISTOGRAM && mf.GetType() != dto.MetricType_GAUGE_HISTOGRAM:
				bad("le label outside a histogram's buckets")
			case l.GetName() == "quantile" && mf.GetType() != dto.MetricType_SUMMARY:
				bad("quantile label outside a summary's quantile samples")
			}
		}
		slices.Sort(set)
		key := strings.Join(set, ",")
		if seen[key] {
			bad("repeated label set {%s}", key)
		}
		seen[key] = true
		if h := m.GetHistogram(); h != nil {
			prev, inf := 0.0, false
			for _, b := range h.GetBucket() {
				c := float64(b.GetCumulativeCount())
				if b.CumulativeCountFloat != nil {
					c = b.GetCumulativeCountFloat()
				}
				if c < prev {
					bad("{%s}: bucket count falls as le grows (le=%v)", key, b.GetUpperBound())
				}
				prev = c
				if math.IsInf(b.GetUpperBound(), 1) {
					inf = true
					n := float64(h.GetSampleCount())
					if h.SampleCountFloat != nil {
						n = h.GetSampleCountFloat()
					}
					if c != n {
						bad("{%s}: _count %v differs from the +Inf bucket %v", key, n, c)
					}
				}
			}
			if !inf {
				bad("{%s}: no le=\"+Inf\" bucket", key)
			}
		}
	}
	return errs
}

// infoAsGauge rewrites every info family as what the specification
// defines it to be, a gauge named <name>_info whose samples are 1, because
// expfmt's OpenMetrics 1.0 parser refuses the info type ("unsupported
// metric type"). Lines keep their numbers; info lists the renamed
// families, whose values Lint then checks are 1.
func infoAsGauge(text string) (string, map[string]bool) {
	lines := strings.Split(text, "\n")
	info := map[string]bool{}
	for _, line := range lines {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && f[3] == "info" {
			info[f[2]] = true
		}
	}
	if len(info) == 0 {
		return text, info
	}
	renamed := map[string]bool{}
	for i, line := range lines {
		f := strings.SplitN(line, " ", 4)
		if len(f) < 3 || f[0] != "#" || !info[f[2]] {
			continue
		}
		switch f[1] {
		case "TYPE":
			lines[i] = "# TYPE " + f[2] + "_info gauge"
		case "HELP", "UNIT":
			f[2] += "_info"
			lines[i] = strings.Join(f, " ")
		}
	}
	for n := range info {
		renamed[n+"_info"] = true
	}
	return strings.Join(lines, "\n"), renamed
}
