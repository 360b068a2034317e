package runspec

import "strings"

// HistogramSuffixes are the endings of a histogram file's name: the
// recipes' .histogram.ndjson, and .histogram.json, which CockroachDB's
// workload requires from v24.3 (its json exporter refuses another name,
// PR #129221). The content is the same ndjson either way.
var HistogramSuffixes = []string{".histogram.ndjson", ".histogram.json"}

// HistogramStem is a histogram file's name without its suffix
// (workload1.histogram.json -> workload1); ok is false for a name with
// neither suffix.
//
// fidelity:v25.4/42
func HistogramStem(name string) (stem, suffix string, ok bool) {
	for _, s := range HistogramSuffixes {
		if stem, ok := strings.CutSuffix(name, s); ok {
			return stem, s, true
		}
	}
	return name, "", false
}
