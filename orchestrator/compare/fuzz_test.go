package compare

import (
	"encoding/binary"
	"math"
	"testing"
)

// floats turns fuzz bytes into a small sample (at most 12 values).
func floats(b []byte) []float64 {
	var out []float64
	for len(b) >= 2 && len(out) < 12 {
		out = append(out, float64(int16(binary.LittleEndian.Uint16(b)))/8)
		b = b[2:]
	}
	return out
}

// Any samples: no panic, p in (0, 1], symmetric in the samples when there
// are no ties, and the exact p equals brute-force enumeration of
// benchstat's definition where that is cheap.
func FuzzMannWhitney(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 3, 0}, []byte{4, 0, 5, 0, 6, 0})
	f.Add([]byte{1, 0, 1, 0}, []byte{1, 0, 2, 0})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		x, y := floats(a), floats(b)
		r, ok := MannWhitney(x, y)
		if !ok {
			return
		}
		s, _ := MannWhitney(y, x)
		if !(r.P > 0 && r.P <= 1) || (!hasTies(x, y) && math.Abs(r.P-s.P) > 1e-9) {
			t.Fatalf("x=%v y=%v: p=%v, swapped %v", x, y, r.P, s.P)
		}
		if len(x)+len(y) <= 12 {
			if want := bruteP(x, y); want > 0 && math.Abs(r.P-want) > 1e-9 {
				t.Fatalf("x=%v y=%v: p=%v, enumeration %v", x, y, r.P, want)
			}
		}
	})
}
