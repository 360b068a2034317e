package histogram

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The bucket layout of every histogram written or accepted: CockroachDB's
// workload records nanoseconds clamped into [100µs, 100s] with one
// significant figure. Readers merge bucket arrays index by index, so a
// writer with any other layout would produce files nobody can merge.
const (
	// fidelity:v20.1/D25
	MinLatency  = 100 * time.Microsecond
	MaxLatency  = 100 * time.Second
	SigFigs     = 1
	CountsLen   = 288 // len(Counts) for the layout above; checked by a test
	maxLineSize = 1 << 20
)

// Snapshot is the wire form of a histogram: exactly the four fields of the
// codahale/HdrHistogram Snapshot that CockroachDB serialises. (hdrhistogram-go
// v1.4's Snapshot has a fifth field, so it cannot be encoded directly.)
type Snapshot struct {
	LowestTrackableValue  int64
	HighestTrackableValue int64
	SignificantFigures    int64
	Counts                []int64
}

// Tick is one ndjson line: the delta histogram of operation Name over the
// interval [Now-Elapsed, Now). Field names and order are the format.
type Tick struct {
	Name    string
	Hist    Snapshot
	Elapsed time.Duration // JSON integer nanoseconds
	Now     time.Time     // JSON RFC3339Nano
}

// NewHistogram returns an empty histogram with the shared layout.
func NewHistogram() *hdr.Histogram { return NewHistogramMax(MaxLatency) }

// NewHistogramMax is NewHistogram tracking up to max (workload's
// --histograms-max-latency; 100s by default).
//
// fidelity:v20.1/D25
func NewHistogramMax(max time.Duration) *hdr.Histogram {
	return hdr.New(MinLatency.Nanoseconds(), max.Nanoseconds(), SigFigs)
}

// newLike returns an empty histogram with h's range, at least the default.
func newLike(h *hdr.Histogram) *hdr.Histogram {
	return NewHistogramMax(time.Duration(max(h.HighestTrackableValue(), MaxLatency.Nanoseconds())))
}

// Export converts a histogram into its wire snapshot.
func Export(h *hdr.Histogram) Snapshot {
	s := h.Export()
	return Snapshot{
		LowestTrackableValue:  s.LowestTrackableValue,
		HighestTrackableValue: s.HighestTrackableValue,
		SignificantFigures:    s.SignificantFigures,
		Counts:                s.Counts,
	}
}

// Histogram rebuilds the histogram of a decoded snapshot. It rejects
// snapshots whose layout differs from ours: merging them bucket by bucket
// would silently misplace counts.
func (s Snapshot) Histogram() (*hdr.Histogram, error) {
	// The highest trackable value is --histograms-max-latency, which may
	// differ (merges re-record values, so ranges may differ); the lowest
	// and the precision are fixed.
	if s.LowestTrackableValue != MinLatency.Nanoseconds() || s.SignificantFigures != SigFigs ||
		s.HighestTrackableValue < MinLatency.Nanoseconds()*2 || s.HighestTrackableValue > time.Hour.Nanoseconds() {
		return nil, fmt.Errorf("histogram layout (%d, %d, %d sigfigs) differs from (%d, %d..%d, %d)",
			s.LowestTrackableValue, s.HighestTrackableValue, s.SignificantFigures,
			MinLatency.Nanoseconds(), 2*MinLatency.Nanoseconds(), time.Hour.Nanoseconds(), SigFigs)
	}
	hs := &hdr.Snapshot{
		LowestTrackableValue:  s.LowestTrackableValue,
		HighestTrackableValue: s.HighestTrackableValue,
		SignificantFigures:    s.SignificantFigures,
		Counts:                s.Counts,
	}
	if err := hs.Validate(); err != nil {
		return nil, err
	}
	return hdr.Import(hs), nil
}

// Encoder writes ticks as ndjson.
type Encoder struct {
	enc *json.Encoder
}

// NewEncoder returns an Encoder writing to w. Encoding is unbuffered; wrap w
// in a bufio.Writer and flush it if ticks are frequent.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{enc: json.NewEncoder(w)}
}

// Encode writes one line.
func (e *Encoder) Encode(t Tick) error {
	if err := e.enc.Encode(t); err != nil {
		return fmt.Errorf("encode tick %s: %w", t.Name, err)
	}
	return nil
}

// Decode reads every tick of an ndjson stream. Blank lines are skipped;
// a malformed line fails with its line number.
func Decode(r io.Reader) ([]Tick, error) {
	var ticks []Tick
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLineSize)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var t Tick
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if t.Name == "" {
			return nil, fmt.Errorf("line %d: tick without Name", line)
		}
		ticks = append(ticks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return ticks, nil
}

// DecodePartial reads the ticks a driver wrote before it died: as Decode,
// except that a last line cut short (no final newline, not valid JSON:
// the process was killed mid-write) is dropped and reported as truncated
// instead of failing the file. A malformed line elsewhere still fails.
func DecodePartial(data []byte) (ticks []Tick, truncated bool, err error) {
	whole := data
	var tail []byte
	if n := len(data); n > 0 && data[n-1] != '\n' {
		i := bytes.LastIndexByte(data, '\n')
		whole, tail = data[:i+1], data[i+1:]
	}
	ticks, err = Decode(bytes.NewReader(whole))
	if err != nil || len(bytes.TrimSpace(tail)) == 0 {
		return ticks, false, err
	}
	var t Tick
	if json.Unmarshal(bytes.TrimSpace(tail), &t) != nil || t.Name == "" {
		return ticks, true, nil
	}
	return append(ticks, t), false, nil
}
