package histogram

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzDecode: the ndjson reader never panics on a histogram file, and
// neither does rebuilding and merging what it returns (a collected file
// comes from a host, not from benchrig).
func FuzzDecode(f *testing.F) {
	var good bytes.Buffer
	enc := NewEncoder(&good)
	h := NewHistogram()
	for _, v := range []int64{1e6, 5e6, 2e9} {
		h.RecordValue(v)
	}
	for _, name := range []string{"newOrder", "payment"} {
		enc.Encode(Tick{Name: name, Hist: Export(h), Elapsed: time.Second, Now: time.Unix(1600000000, 0).UTC()})
	}
	f.Add(good.Bytes())
	f.Add([]byte("{\n"))
	f.Add(append(good.Bytes(), good.Bytes()...)) // every tick twice
	f.Add([]byte(`{"Name":"<b>","Hist":{"LowestTrackableValue":100000,"HighestTrackableValue":100000000000,"SignificantFigures":1,"Counts":[1]},"Elapsed":1,"Now":"2026-01-01T00:00:00Z","x":1}` + "\n"))
	f.Add([]byte(`{"Name":"a","Hist":{"LowestTrackableValue":100000,"HighestTrackableValue":100000000000,"SignificantFigures":1,"Counts":[1,2,3]},"Elapsed":-1}` + "\n"))
	f.Add([]byte(`{"Name":"a","Hist":{"LowestTrackableValue":-5,"HighestTrackableValue":0,"SignificantFigures":9,"Counts":[-1]}}`))
	f.Add([]byte(`{"Name":"a","Hist":{"LowestTrackableValue":100000,"HighestTrackableValue":100000000000,"SignificantFigures":3,"Counts":[9223372036854775807,9223372036854775807]}}`))
	if files, _ := filepath.Glob("testdata/*.ndjson"); len(files) > 0 {
		for _, file := range files[:min(len(files), 3)] {
			if b, err := os.ReadFile(file); err == nil && len(b) < 1<<20 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A dead host's file (DecodePartial) never fails where Decode
		// succeeds, and gives the same ticks unless its last line was cut.
		partial, truncated, perr := DecodePartial(data)
		ticks, err := Decode(bytes.NewReader(data))
		if err == nil && (perr != nil || truncated || len(partial) != len(ticks)) {
			t.Errorf("DecodePartial: %d ticks, truncated %v, %v; Decode: %d ticks", len(partial), truncated, perr, len(ticks))
		}
		if err != nil {
			return
		}
		// What Decode accepts holds its schema and bounds: plain names,
		// counts and intervals in range, each name's ticks in order.
		last := map[string]time.Time{}
		for _, tk := range ticks {
			if err := checkTick(&tk); err != nil {
				t.Errorf("accepted a tick that fails its bounds: %v", err)
			}
			if p, ok := last[tk.Name]; ok && !tk.Now.After(p) {
				t.Errorf("accepted %s at %v after %v", tk.Name, tk.Now, p)
			}
			last[tk.Name] = tk.Now
		}
		for _, tk := range ticks {
			if h, err := tk.Hist.Histogram(); err == nil {
				_ = h.TotalCount()
			}
		}
		if r, err := NewResult(1, ticks); err == nil {
			if m, err := MergeResults(r, r); err == nil {
				_ = m.Check()
			}
		}
	})
}
