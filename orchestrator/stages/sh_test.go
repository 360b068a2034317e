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

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
