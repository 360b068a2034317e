package runspec

import "fmt"

// Fill factors `tpcc init --fillfactor` and a plan's tpcc.fillfactor may
// take: PostgreSQL's bounds; 0 leaves the server's default (100).
const (
	MinFillFactor = 10
	MaxFillFactor = 100
)

// CheckFillFactor says what is wrong with a fillfactor, or nil.
func CheckFillFactor(ff int) error {
	if ff != 0 && (ff < MinFillFactor || ff > MaxFillFactor) {
		return fmt.Errorf("fillfactor %d: must be %d..%d (0: the server's default)", ff, MinFillFactor, MaxFillFactor)
	}
	return nil
}
