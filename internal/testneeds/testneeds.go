package testneeds

import (
	"os"
	"strconv"
	"testing"
)

// UnderCI reports whether the environment says this is a CI run (CI=true,
// or any other true value strconv.ParseBool accepts).
func UnderCI() bool {
	ci, err := strconv.ParseBool(os.Getenv("CI"))
	return err == nil && ci
}

// Missing ends t because a part it needs is missing here (why says which
// and how to install it): it skips t, or, under CI, fails it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if UnderCI() {
		t.Fatalf("%s (CI=true: a missing part fails the suite instead of skipping the test)", why)
	}
	t.Skip(why)
}
