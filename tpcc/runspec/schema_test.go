package runspec

import "testing"

func TestCheckFillFactor(t *testing.T) {
	for _, c := range []struct {
		ff int
		ok bool
	}{{0, true}, {10, true}, {85, true}, {100, true}, {9, false}, {101, false}, {-1, false}} {
		if err := CheckFillFactor(c.ff); (err == nil) != c.ok {
			t.Errorf("CheckFillFactor(%d) = %v, want ok %v", c.ff, err, c.ok)
		}
	}
}
