package testneeds

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestUnderCI(t *testing.T) {
	for _, c := range []struct {
		env  string
		want bool
	}{{"", false}, {"true", true}, {"1", true}, {"TRUE", true}, {"false", false}, {"0", false}, {"yes", false}} {
		t.Setenv("CI", c.env)
		if got := UnderCI(); got != c.want {
			t.Errorf("CI=%q: UnderCI() = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestMissing runs this test binary again with TESTNEEDS_CHILD set, so
// that the child's Missing really skips or fails a test, and reads what
// go test's runner made of it.
func TestMissing(t *testing.T) {
	if os.Getenv("TESTNEEDS_CHILD") != "" {
		Missing(t, "no such part (install it)")
		return
	}
	for _, c := range []struct {
		ci, want string
		fails    bool
	}{
		{"", "--- SKIP: TestMissing", false},
		{"false", "--- SKIP: TestMissing", false},
		{"true", "--- FAIL: TestMissing", true},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTNEEDS_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != c.fails || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "no such part (install it)") {
			t.Errorf("CI=%q: err %v, want %q naming the part:\n%s", c.ci, err, c.want, out)
		}
	}
}
