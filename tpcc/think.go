package tpcc

import (
	"math"
	"time"
)

// KeyingTime is the constant keying time of clause 5.2.5.2 scaled by
// factor (the --wait factor: 1 for the spec, smaller for tests).
func KeyingTime(t TxnType, factor float64) time.Duration {
	return scale(specs()[t].keying, factor)
}

// ThinkTime draws a think time per clause 5.2.5.4: Tt = −ln(r) × μ with r
// uniform in (0, 1] and μ the mean think time of t, truncated at 10 × μ (the
// clause allows truncation there), then scaled by factor.
//
// fidelity:v20.1/D24
func ThinkTime(r *Rand, t TxnType, factor float64) time.Duration {
	mean := specs()[t].thinkMean
	// Float64 is in [0, 1), so 1−Float64 is in (0, 1]: ln never sees 0.
	x := -math.Log(1-r.Float64()) * float64(mean)
	return scale(time.Duration(min(x, 10*float64(mean))), factor)
}

func scale(d time.Duration, factor float64) time.Duration {
	return time.Duration(float64(d) * factor)
}
