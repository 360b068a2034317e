package plan

import (
	"testing"
	"time"
)

// FuzzExpandPattern: a host pattern expands to at most maxHosts values,
// or an error, without panicking or building more first.
func FuzzExpandPattern(f *testing.F) {
	for _, s := range []string{"crdb1", "node[08-11]", "10.0.1.[9-11]", "r[1,3-4]", "z[1-2]-n[1-2]", "[0-2]",
		"n[1-", "n]", "n[a-b]", "n[5-1]", "n[1-9999999]", "n[0-9999]x[0-9999]", "a[0-99]b[0-99]c[0-99]",
		"n[-1-3]", "n[9223372036854775807]", "n[0-9223372036854775807]", "n[,]", "n[]", "[[1-2]]", "n[1-2]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		out, err := expandPattern(s)
		if err == nil && (len(out) == 0 || len(out) > maxHosts) {
			t.Fatalf("%q: %d values", s, len(out))
		}
		// A guard against expansions that run away (it takes
		// microseconds), generous for a loaded machine under -race: not a
		// speed target.
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%q took %s", s, d)
		}
	})
}
