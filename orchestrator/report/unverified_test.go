package report

import (
	"slices"
	"testing"
)

// The report names every host whose figures were merged as unverified,
// once each, and no host whose files were not merged.
func TestFilesHosts(t *testing.T) {
	for _, tc := range []struct{ files, want []string }{
		{nil, nil},
		{[]string{"results/load2/w2.histogram.ndjson", "results/load1/w1.histogram.ndjson", "results/load1/w1b.histogram.ndjson"}, []string{"load1", "load2"}},
		{[]string{"elsewhere.ndjson"}, []string{"elsewhere.ndjson"}},
	} {
		if got := filesHosts(tc.files); !slices.Equal(got, tc.want) {
			t.Errorf("filesHosts(%q) = %q, want %q", tc.files, got, tc.want)
		}
	}
}
