package runspec

import (
	"fmt"
	"math"
	"strconv"
)

// ParseWait accepts CockroachDB's --wait forms: a bool (true: the spec's
// keying and think times, clause 5.2.5; false: none) or a factor >= 0.
func ParseWait(s string) (float64, error) {
	if b, err := strconv.ParseBool(s); err == nil {
		if b {
			return 1, nil
		}
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	// NaN and Inf parse, but no think time can be drawn from them (and
	// the result could not be written as JSON).
	if err != nil || !(f >= 0) || math.IsInf(f, 1) {
		return 0, fmt.Errorf("--wait %q: want true, false or a factor >= 0", s)
	}
	return f, nil
}
