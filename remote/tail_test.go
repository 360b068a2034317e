package remote

import (
	"strings"
	"testing"
)

// A host's command may print without end: what is kept in memory for
// Result (and the error's tail, which quoteTail cuts per line) is its
// last max bytes; the log file gets everything.
func TestOutputTailsBounded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"short", []string{"a\n", "b\n"}, 8, "a\nb\n"},
		{"exact", []string{"12345678"}, 8, "12345678"},
		{"tail kept", []string{"0123456789", "abcdef"}, 8, "89abcdef"},
		{"one huge write", []string{strings.Repeat("x", 1<<20) + "END"}, 8, "xxxxxEND"},
		{"many small", append(strings.Split(strings.Repeat("yy,", 10000), ","), "Z"), 8, "yyyyyyyZ"},
	} {
		tb := &tailBuffer{max: tc.max}
		peak := 0
		for _, w := range tc.writes {
			tb.Write([]byte(w))
			if cap(tb.buf) > peak {
				peak = cap(tb.buf)
			}
		}
		if got := string(tb.Bytes()); got != tc.want {
			t.Errorf("%s: kept %q, want %q", tc.name, got, tc.want)
		}
		if tc.name == "many small" && peak > 64*tc.max {
			t.Errorf("%s: buffer grew to %d bytes for a tail of %d", tc.name, peak, tc.max)
		}
	}

}
