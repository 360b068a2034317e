package chart

import (
	"math"
	"strconv"
)

// scale maps data values to pixels, linearly or by log10.
type scale struct {
	lo, hi float64 // data range
	p0, p1 float64 // pixel range
	log    bool
}

func (s scale) at(v float64) float64 {
	lo, hi := s.lo, s.hi
	if s.log {
		v, lo, hi = math.Log10(math.Max(v, s.lo)), math.Log10(lo), math.Log10(hi)
	}
	if hi == lo {
		return (s.p0 + s.p1) / 2
	}
	return s.p0 + (v-lo)/(hi-lo)*(s.p1-s.p0)
}

// tick is one axis mark; an empty label is a minor tick.
type tick struct {
	v     float64
	label string
}

// niceStep is the 1, 2 or 5 × 10^k step that divides span into about n
// intervals (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990).
func niceStep(span float64, n int) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / mag; {
	case f < 1.5:
		return mag
	case f < 3:
		return 2 * mag
	case f < 7:
		return 5 * mag
	}
	return 10 * mag
}

// linearTicks widens [lo, hi] to multiples of a nice step and lists the
// ticks; it returns the widened range.
func linearTicks(lo, hi float64, n int) (float64, float64, []tick) {
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep(hi-lo, n)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	var ts []tick
	for i := 0; ; i++ {
		v := lo + float64(i)*step
		if v > hi+step/2 || i > 100 {
			break
		}
		ts = append(ts, tick{v, Format(v)})
	}
	return lo, hi, ts
}

// logTicks widens [lo, hi] (lo > 0) to powers of ten and marks 1, 2 and 5
// of every decade (2 and 5 labelled only when there are few decades).
func logTicks(lo, hi float64) (float64, float64, []tick) {
	if lo <= 0 {
		lo = hi / 1000
	}
	if hi <= lo {
		hi = lo * 10
	}
	a, b := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if b == a {
		b++
	}
	var ts []tick
	for e := a; e <= b; e++ {
		base := math.Pow(10, e)
		ts = append(ts, tick{base, Format(base)})
		if e == b {
			break
		}
		for _, m := range []float64{2, 5} {
			l := ""
			if b-a <= 3 {
				l = Format(m * base)
			}
			ts = append(ts, tick{m * base, l})
		}
	}
	return math.Pow(10, a), math.Pow(10, b), ts
}

// Format writes a tick or table value briefly: 12,345 as 12.3k, 0.25 as 0.25.
func Format(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	case a >= 1:
		return trim(v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func trim(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
