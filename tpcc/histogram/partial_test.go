package histogram

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestDecodePartial: the ticks a killed driver wrote are read up to a
// last line cut mid-write, which is dropped and reported; anything else
// malformed still fails, as in Decode.
func TestDecodePartial(t *testing.T) {
	var b bytes.Buffer
	enc := NewEncoder(&b)
	for s := 1; s <= 3; s++ {
		if err := enc.Encode(Tick{Name: NewOrder, Hist: Export(NewHistogram()), Elapsed: time.Second, Now: time.Unix(int64(1600000000+s), 0).UTC()}); err != nil {
			t.Fatal(err)
		}
	}
	whole := b.String()
	first := whole[:strings.Index(whole, "\n")+1]
	for _, tc := range []struct {
		name      string
		data      string
		ticks     int
		truncated bool
		err       string
	}{
		{"whole", whole, 3, false, ""},
		{"empty", "", 0, false, ""},
		{"cut mid-line", whole[:len(whole)-20], 2, true, ""},
		{"cut after a newline", whole[:len(first)], 1, false, ""},
		{"last line whole without its newline", strings.TrimSuffix(whole, "\n"), 3, false, ""},
		{"cut in the first line", first[:10], 0, true, ""},
		{"malformed inside", first + "{oops\n" + first, 0, false, "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks, truncated, err := DecodePartial([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || len(ticks) != tc.ticks || truncated != tc.truncated {
				t.Errorf("%d ticks, truncated %v, %v; want %d, %v", len(ticks), truncated, err, tc.ticks, tc.truncated)
			}
		})
	}
}
