package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// expandPattern expands one range pattern: "node[01-03]" gives node01,
// node02, node03 (the width of the lower bound is kept, as in pdsh and
// Slurm host lists); "10.0.1.[11-13]" gives three addresses; "a[1,3,5-6]"
// lists. Several bracket groups multiply, left to right. A string without
// brackets expands to itself.
func expandPattern(s string) ([]string, error) { return expandPatternMax(s, maxHosts) }

// expandPatternMax is expandPattern refusing patterns that stand for more
// than limit strings (bracket groups multiply: a[0-99999]b[0-99999] is
// ten billion hosts), before building any of them.
func expandPatternMax(s string, limit int) ([]string, error) {
	n, err := patternCount(s, limit)
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("pattern %q: expands to more than %d values", s, limit)
	}
	return expandOne(s)
}

// patternCount is how many strings s expands to, stopping past limit.
func patternCount(s string, limit int) (int, error) {
	total := 1
	for {
		open := strings.IndexByte(s, '[')
		if open < 0 {
			return total, nil
		}
		end := strings.IndexByte(s[open:], ']')
		if end < 0 {
			return 0, fmt.Errorf("pattern %q: '[' without ']'", s)
		}
		group := 0
		for _, part := range strings.Split(s[open+1:open+end], ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.Atoi(lo)
			if err != nil || a < 0 {
				return 0, fmt.Errorf("pattern %q: %q is not a number", s, lo)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil || b < 0 {
					return 0, fmt.Errorf("pattern %q: %q is not a number", s, hi)
				}
			}
			if b < a {
				return 0, fmt.Errorf("pattern %q: range %s runs backwards", s, part)
			}
			if b-a >= limit || group+(b-a+1) > limit {
				return limit + 1, nil
			}
			group += b - a + 1
		}
		if total > limit/group {
			return limit + 1, nil
		}
		total *= group
		s = s[open+end+1:]
	}
}

// expandOne expands a pattern already counted.
func expandOne(s string) ([]string, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if strings.IndexByte(s, ']') >= 0 {
			return nil, fmt.Errorf("pattern %q: ']' without '['", s)
		}
		return []string{s}, nil
	}
	end := strings.IndexByte(s[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("pattern %q: '[' without ']'", s)
	}
	end += open
	prefix, body, rest := s[:open], s[open+1:end], s[end+1:]
	var items []string
	for _, part := range strings.Split(body, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %q is not a number", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("pattern %q: %q is not a number", s, hi)
			}
		}
		if b < a {
			return nil, fmt.Errorf("pattern %q: range %s runs backwards", s, part)
		}
		if b-a > 100000 {
			return nil, fmt.Errorf("pattern %q: range %s is too large", s, part)
		}
		// Counted, not "i <= b": b may be math.MaxInt, where i++ wraps.
		for k := 0; k <= b-a; k++ {
			items = append(items, fmt.Sprintf("%0*d", len(lo), a+k))
		}
	}
	tails, err := expandOne(rest)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(items)*len(tails))
	for _, it := range items {
		for _, t := range tails {
			out = append(out, prefix+it+t)
		}
	}
	return out, nil
}
