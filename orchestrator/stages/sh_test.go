package stages

import (
	"os"
	"os/exec"
	"testing"
)

func execSh(script string) (string, error) {
	out, err := exec.Command("sh", "-c", script).Output()
	return string(out), err
}

// withLicense gives the shipped plans' licence reference a value unless
// the test set one: validation resolves it.
func withLicense(t testing.TB) {
	if _, ok := os.LookupEnv("COCKROACH_LICENSE"); !ok {
		t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	}
}
