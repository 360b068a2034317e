package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/tpcc/result"
)

// TestCompareSaysIncomplete: a side whose measured run died on a host is
// named, first among the notes of every format; complete sides are not.
func TestCompareSaysIncomplete(t *testing.T) {
	dead := []result.IncompleteHost{{Host: "load2", Reason: "killed (SIGKILL)", CoveredSeconds: 30, WindowSeconds: 60, CoveredPercent: 50}}
	for _, tc := range []struct {
		name      string
		mark      func(runs []*Run)
		want, not string
	}{
		{"both complete", func([]*Run) {}, "", "INCOMPLETE"},
		{"the new side", func(r []*Run) { r[1].Report.Result.Incomplete = dead }, "single is INCOMPLETE (a measured run died): load2 killed (SIGKILL), covered 30.0 s of the 60.0 s window (50.0%)", "runA is INCOMPLETE"},
		{"a baseline repeat", func(r []*Run) { r[0].Report.Rounds[1].Result.Incomplete = dead }, "runA is INCOMPLETE (a measured run died): load2 killed (SIGKILL), covered 30.0 s of the 60.0 s window (50.0%) (round repeat 2)", "single is INCOMPLETE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := load(t, "runA", "single")
			tc.mark(runs)
			c, err := Compare(runs...)
			if err != nil {
				t.Fatal(err)
			}
			for _, format := range Formats {
				var b bytes.Buffer
				if err := Write(&b, c, format); err != nil {
					t.Fatal(err)
				}
				if tc.want != "" && !strings.Contains(b.String(), tc.want) || strings.Contains(b.String(), tc.not) {
					t.Errorf("%s: want %q, not %q:\n%s", format, tc.want, tc.not, b.String())
				}
			}
			if tc.want != "" && (len(c.Notes) == 0 || !strings.Contains(c.Notes[0], tc.want)) {
				t.Errorf("notes %q: the incomplete side is not first", c.Notes)
			}
		})
	}
}
