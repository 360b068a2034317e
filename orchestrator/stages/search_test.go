package stages

import "testing"

// TestSearchNext: bisection finds the threshold of a monotone pass/fail
// in about log2(range) iterations, and stops at the resolution.
func TestSearchNext(t *testing.T) {
	for _, tt := range []struct {
		min, max, res, threshold int // values <= threshold pass
		want, maxTries           int
	}{
		{1, 100, 1, 37, 37, 7},
		{1, 100, 1, 100, 100, 7},
		{1, 100, 1, 0, 0, 7},
		{1, 1, 1, 1, 1, 1},
		{100, 10000, 100, 4321, 4321, 7}, // within the resolution
	} {
		s := &Search{Min: tt.min, Max: tt.max, Resolution: tt.res}
		var points []SearchPoint
		for {
			v, more := s.Next(points)
			if !more {
				break
			}
			if v < tt.min || v > tt.max {
				t.Fatalf("%+v: tried %d outside the bounds", tt, v)
			}
			points = append(points, SearchPoint{Value: v, Pass: v <= tt.threshold})
			if len(points) > 40 {
				t.Fatalf("%+v: no end: %v", tt, points)
			}
		}
		got := BestPassing(points)
		if got > tt.want || tt.want-got >= max(1, tt.res) || len(points) > tt.maxTries {
			t.Errorf("%+v: best %d after %d tries %v", tt, got, len(points), points)
		}
	}
}
