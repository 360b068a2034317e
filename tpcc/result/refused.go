package result

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchrig/benchrig/tpcc/runspec"

	envelope "github.com/benchrig/benchrig/internal/result"
	"github.com/benchrig/benchrig/tpcc/histogram"
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

// refusedHost is a histogram file a merge left out, and why.
type refusedHost struct {
	file, why string
}

// RefusedError is a merge in which every host's files were refused.
type RefusedError struct{ Files []refusedHost }

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("merge: every host's files were refused:")
	for _, f := range e.Files {
		fmt.Fprintf(&b, " %s (%s: %s);", hostOfFile(f.file), f.file, f.why)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// hostOfFile is the host a collected file came from: the run directory
// keeps it as results/<host>/<file>.
func hostOfFile(path string) string {
	return filepath.Base(filepath.Dir(path))
}

// isHostData says whether a read error is the content's (a malformed
// file) rather than this machine's (a missing file, a failed read).
func isHostData(err error) bool {
	var pe *fs.PathError
	return !errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist)
}

// checkRunResult decodes the host's run result beside the histogram file
// strictly, if there is one: the kind and bounds of its counters. A
// missing one is not the host's fault here (an older driver, a death).
func checkRunResult(hist string) error {
	r, err := ReadResult(ResultFileFor(hist))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if r.Kind != KindRun {
		return fmt.Errorf("%s: kind %q, want %q", ResultFileFor(hist), r.Kind, KindRun)
	}
	// A string with a known set of values is one of them (the others are
	// escaped where they are shown).
	if _, err := runspec.ParseProfile(r.Profile); err != nil {
		return fmt.Errorf("%s: not a load profile", ResultFileFor(hist))
	}
	for _, t := range r.Transactions {
		for _, v := range []*int64{t.Errors, t.Retries} {
			if v != nil && (*v < 0 || *v > 1<<50) {
				return fmt.Errorf("%s: %s: counter %d out of bounds", ResultFileFor(hist), t.Name, *v)
			}
		}
		for _, v := range []*float64{t.RetryLostMs, t.RetryBackoffMs} {
			if v != nil && (math.IsNaN(*v) || *v < 0 || *v > 1e15) {
				return fmt.Errorf("%s: %s: retry cost %v out of bounds", ResultFileFor(hist), t.Name, *v)
			}
		}
	}
	return nil
}

// markRefused names the hosts a merge left out, like the dead ones: the
// merge covers none of their window, and is marked incomplete.
func (r *Result) markRefused(refused []refusedHost, dead []deadHost, all []*histogram.Result) {
	if len(refused) == 0 {
		return
	}
	var window time.Duration
	for _, hr := range all {
		window = max(window, hr.Elapsed)
	}
	var fails []string
	for _, f := range refused {
		h := IncompleteHost{Host: hostOfFile(f.file), File: f.file, Reason: "refused (" + f.why + ")",
			WindowSeconds: window.Seconds(), Refused: true}
		r.Incomplete = append(r.Incomplete, h)
		fails = append(fails, "incomplete: "+h.Text())
	}
	r.Header.Schema = envelope.SchemaV2
	r.Pass, r.Failures = false, append(fails, r.Failures...)
}

// plainReason is a decoder's message made safe to quote in a report, a
// console or a markup file: it may hold a host's bytes (an unknown
// field's name, a character). Only letters, digits, spaces and
// punctuation without a meaning in Markdown, HTML or a terminal are
// kept; anything else is '?', and the text is cut at 300 bytes.
func plainReason(s string) string {
	var b strings.Builder
	for _, c := range s {
		if b.Len() >= 300 {
			b.WriteString("...")
			break
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune(" .,:;/()-+=%@#", c):
			b.WriteRune(c)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}
