package tpcc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// A file a host left behind is data from a party that may be hostile.
// When collect refuses one (not a regular file, past its bound, its
// content not what the host itself hashed), the orchestrator leaves a
// refusal record beside where it would have gone:
// results/load2/workload2.histogram.ndjson.refused. A merge that finds a
// record for a host's histogram, run result or ticks file (or that
// cannot decode the histogram strictly) leaves that host out and names
// it among the incomplete hosts, as it does a host whose run died: the
// other hosts' figures merge, marked as not the run's.

// RefusedFileFor is the refusal record of a collected file.
func RefusedFileFor(path string) string { return path + ".refused" }

// maxRefusedRecord bounds the record's read: it is benchrig's own line,
// but it lies in a directory the run shares with hosts' files.
const maxRefusedRecord = 4 << 10

// WriteRefused leaves the refusal record of path, saying why.
func WriteRefused(path, why string) error {
	return os.WriteFile(RefusedFileFor(path), []byte(strings.TrimSpace(why)+"\n"), 0o644)
}

// ClearRefused removes path's refusal record (the file was taken).
func ClearRefused(path string) error {
	err := os.Remove(RefusedFileFor(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// readRefused is the reason of path's refusal record, "" when it has
// none.
func readRefused(path string) (string, error) {
	f, err := os.Open(RefusedFileFor(path))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRefusedRecord))
	if err != nil {
		return "", err
	}
	why := strings.TrimSpace(string(b))
	if why == "" {
		why = "refused"
	}
	return why, nil
}

// hostRefusal is why the files of the host whose histogram file is hist
// cannot be merged, "" when nothing was refused: a refusal record of its
// histogram, run result or ticks file.
func hostRefusal(hist string) (string, error) {
	for _, p := range []string{hist, ResultFileFor(hist), TicksFileFor(hist)} {
		why, err := readRefused(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", RefusedFileFor(p), err)
		}
		if why != "" {
			return why, nil
		}
	}
	return "", nil
}
