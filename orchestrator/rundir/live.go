package rundir

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// LiveFile is where a running run stage keeps its live throughput
// (Live), rewritten every few seconds; status --watch reads it.
const LiveFile = "live.json"

// LiveSchema versions live.json.
const LiveSchema = "benchrig.live/v1"

// Live is the run stage's throughput as it runs: each workload host's
// New-Orders over its last few histogram ticks, and their sum.
type Live struct {
	Schema  string     `json:"schema"`
	Updated time.Time  `json:"updated"`
	Round   string     `json:"round,omitempty"`
	TpmC    float64    `json:"tpmc"` // the hosts' sum
	Hosts   []LiveHost `json:"hosts"`
	// Done: the run stage ended; the figures are its last.
	Done bool `json:"done,omitempty"`
}

// LiveHost is one workload host's recent throughput.
type LiveHost struct {
	Host string `json:"host"`
	// TpmC over Window seconds of ticks ending at Last; 0 with no tick
	// yet (the ramp, whose ticks are not recorded).
	TpmC   float64    `json:"tpmc"`
	Window float64    `json:"window_s"`
	Last   *time.Time `json:"last_tick,omitempty"`
	Error  string     `json:"error,omitempty"`
}

// WriteLive replaces runDir's live.json.
func WriteLive(runDir string, l *Live) error {
	l.Schema = LiveSchema
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(runDir, LiveFile), append(data, '\n'))
}

// ReadLive reads runDir's live.json; nil without one.
func ReadLive(runDir string) (*Live, error) {
	data, err := os.ReadFile(filepath.Join(runDir, LiveFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var l Live
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Driven says whether a live benchrig process holds runDir's lock: the
// pid the holder wrote into the lock file still runs. It takes no lock
// (a status must never refuse a resume starting at the same moment).
func Driven(runDir string) (pid int, live bool) {
	b, err := os.ReadFile(filepath.Join(runDir, LockFile))
	if err != nil {
		return 0, false
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, syscall.Kill(pid, 0) == nil || errors.Is(syscall.Kill(pid, 0), syscall.EPERM)
}
