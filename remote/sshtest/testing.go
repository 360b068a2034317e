package sshtest

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/benchrig/benchrig/internal/testneeds"
)

// StartT starts an n-host lab for a test and stops it at cleanup. It
// skips the test when sshd is not installed (fails it under CI, CI=true:
// internal/testneeds), and fails it on any other error. The lab lives in a fresh directory under os.TempDir (not
// t.TempDir, whose 0700 root-owned parents the sshd user could not
// reach); it is removed at cleanup unless the test failed, so the sshd
// logs stay for diagnosis.
func StartT(t testing.TB, n int, opts ...Option) *Lab {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		testneeds.Missing(t, fmt.Sprintf("real OpenSSH server needed: %v", ErrNoSSHD))
	}
	dir, err := os.MkdirTemp("", "sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Start(dir, n, opts...)
	if errors.Is(err, ErrNoSSHD) {
		testneeds.Missing(t, fmt.Sprintf("real OpenSSH server needed: %v", err))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("sshtest: %v", err)
		}
		if t.Failed() {
			t.Logf("sshtest: lab kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return l
}
