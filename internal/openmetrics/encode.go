package openmetrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchrig/benchrig/internal/termsafe"
)

// ContentType is the HTTP Content-Type of an exposition in this format.
const ContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// Family is one metric family; its samples are written together, after
// its TYPE, UNIT (when given) and HELP lines.
type Family struct {
	Name, Type, Unit, Help string
	Samples                []Sample
}

// Sample is one line of a family: Suffix is "" for a gauge, "_total" for
// a counter, "_info" for an info, "_bucket"/"_count"/"_sum" for a
// histogram's parts.
type Sample struct {
	Suffix string
	Labels [][2]string
	Value  float64
}

// Write writes the families that have samples, then the closing # EOF.
func Write(w io.Writer, fams []Family) error {
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		if len(f.Samples) == 0 {
			continue
		}
		fmt.Fprintf(bw, "# TYPE %s %s\n", f.Name, f.Type)
		if f.Unit != "" {
			fmt.Fprintf(bw, "# UNIT %s %s\n", f.Name, f.Unit)
		}
		fmt.Fprintf(bw, "# HELP %s %s\n", f.Name, escape(f.Help))
		for _, s := range f.Samples {
			bw.WriteString(f.Name + s.Suffix)
			if len(s.Labels) > 0 {
				bw.WriteByte('{')
				for i, l := range s.Labels {
					if i > 0 {
						bw.WriteByte(',')
					}
					bw.WriteString(l[0] + `="` + escape(l[1]) + `"`)
				}
				bw.WriteByte('}')
			}
			bw.WriteString(" " + FormatValue(s.Value) + "\n")
		}
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

// escape escapes a label value or HELP text: backslash, double quote and
// line feed, the three characters the format gives a meaning to there.
// A value may quote a host (a database version), and the exposition is
// read on terminals too (benchrig export): the characters a terminal acts
// on are made visible first (termsafe.String's \x1b, whose backslash the
// format's escaping then doubles), so none reaches a reader raw.
func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(termsafe.String(s))
}

// FormatValue writes a sample value as the format spells floats
// (NaN, +Inf and -Inf included).
func FormatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
