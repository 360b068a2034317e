package remote_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestPutRefusesFIFO: an upload whose local file is a FIFO or a device
// fails at once (it used to block in open(2) until a writer came).
func TestPutRefusesFIFO(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for local, want := range map[string]string{fifo: "not a regular file (a named pipe)", "/dev/zero": "not a regular file (a character device)"} {
		done := make(chan error, 1)
		go func() {
			done <- s.Put(context.Background(), l.Name(0), remote.Transfer{Local: local, Remote: "x"})
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", local, err, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Put of %s hangs", local)
		}
	}
}
