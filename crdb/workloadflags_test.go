package crdb

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRowsNameTheReleaseFlags: the fidelity rows that list `workload run
// tpcc`'s flags name only flags of the release's set (the one extra flags
// are checked against), and v20.1's row names as absent only a flag the
// set lacks, so a flag dropped from the code fails the table.
func TestRowsNameTheReleaseFlags(t *testing.T) {
	row := func(file, id string) string {
		t.Helper()
		doc, err := os.ReadFile("../docs/fidelity/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(doc), "\n") {
			if cols := strings.Split(line, "|"); len(cols) > 3 && strings.TrimSpace(cols[1]) == id {
				return cols[2] // the behaviour column
			}
		}
		t.Fatalf("no row %s in %s", id, file)
		return ""
	}
	flag := regexp.MustCompile("`(--)?([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:=[^`]*)?`")
	check := func(file, id string, set map[string]bool, bare bool) {
		n := 0
		for _, m := range flag.FindAllStringSubmatch(row(file, id), -1) {
			dashed, name := m[1] != "", m[2]
			switch {
			case dashed != bare && !set[name]: // a listed flag (bare in S74, dashed in 44)
				t.Errorf("%s row %s names %s, which is not a flag of the release's set", file, id, name)
			case bare && dashed && set[name]:
				// In v20.1's row the dashed name is the one it says is absent.
				t.Errorf("%s row %s says --%s is absent; the release's set has it", file, id, name)
			default:
				n++
			}
		}
		if n < 5 {
			t.Errorf("%s row %s: %d flags found; the pattern no longer reads the row", file, id, n)
		}
	}
	check("v20.1.md", "S74", workloadRunFlags201, true)
	check("v25.4.md", "44", workloadRunFlagsCurrent, false)
}
