package result

import (
	"errors"
	"io/fs"

	envelope "github.com/benchrig/benchrig/internal/result"
)

// KindDied is the record the orchestrator leaves beside a workload host's
// collected histogram file when that host's measured run died before the
// window's end (killed by a signal, or vanished without an exit status):
// workload1.died.json beside workload1.histogram.ndjson. MergeFiles reads
// it, so the merge names the host instead of merging a shorter histogram
// as if it covered the window.
const KindDied = "tpcc.died"

// Died is a KindDied record.
type Died struct {
	envelope.Header
	// Host, Stage, Step and Job say which measured run died; Reason how
	// ("killed (SIGKILL)", "vanished without exit status").
	Host   string `json:"host"`
	Stage  string `json:"stage"`
	Step   string `json:"step"`
	Job    string `json:"job"`
	Reason string `json:"reason"`
	// WindowSeconds is the planned measured window (tpcc.duration): the
	// coverage of a host is judged against it when every host died.
	WindowSeconds float64 `json:"window_s,omitempty"`
}

// DiedFileFor is the died record of a histogram file:
// workload1.histogram.ndjson -> workload1.died.json.
func DiedFileFor(histograms string) string {
	return siblingOf(histograms, ".died.json")
}

// ReadDied reads the died record of a histogram file; nil, nil when there
// is none (the host's run was not seen to die).
func ReadDied(histograms string) (*Died, error) {
	var d Died
	err := envelope.ReadFile(DiedFileFor(histograms), &d, KindDied)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// IncompleteHost is a host of a merge whose measured run died: its
// histogram covers CoveredSeconds of the WindowSeconds the merge spans
// (CoveredPercent), so every merged figure counts less than the run.
type IncompleteHost struct {
	Host           string  `json:"host"`
	File           string  `json:"file"`
	Reason         string  `json:"reason"`
	CoveredSeconds float64 `json:"covered_s"`
	WindowSeconds  float64 `json:"window_s"`
	CoveredPercent float64 `json:"covered_percent"`
	// Truncated: the histogram's last line was cut by the death and left
	// out.
	Truncated bool `json:"truncated,omitempty"`
	// Refused: the host's files were refused (not regular, past their
	// bounds, malformed) and left out of the merge: it covers none of
	// the window, and nothing it sent is in the figures.
	Refused bool `json:"refused,omitempty"`
}
