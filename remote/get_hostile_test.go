package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestGetRefusesHostileFiles: what a host offers as a file to download is
// taken only if it is a regular file within the transfer's bounds; every
// other offer is a *RefusedError, returned at once (a FIFO does not hold
// the download), and the local copy of an earlier download is removed.
func TestGetRefusesHostileFiles(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	ctx := context.Background()
	dir := filepath.Join(l.HostDir(0), "hostile")
	if err := os.MkdirAll(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "operator-secret")
	os.WriteFile(secret, []byte("operator's"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok"), []byte("fine\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "link"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	big, _ := os.Create(filepath.Join(dir, "big"))
	big.Truncate(1 << 30) // sparse: 1 GiB offered, nothing written
	big.Close()
	os.Symlink("/dev/zero", filepath.Join(dir, "devlink"))

	local := filepath.Join(t.TempDir(), "results", "f")
	for _, c := range []struct{ remote, why string }{
		{filepath.Join(dir, "link"), "symbolic link"},
		{filepath.Join(dir, "fifo"), "FIFO"},
		{filepath.Join(dir, "adir"), "directory"},
		{"/dev/zero", "device"},
		{filepath.Join(dir, "devlink"), "symbolic link"},
		{filepath.Join(dir, "big"), "1073741824 bytes, more than the 1048576"},
	} {
		os.MkdirAll(filepath.Dir(local), 0o755)
		os.WriteFile(local, []byte("an earlier download"), 0o644)
		start := time.Now()
		err := s.Get(ctx, l.Name(0), remote.Transfer{Remote: c.remote, Local: local, MaxBytes: 1 << 20, Timeout: time.Minute})
		var re *remote.RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("get %s: %v, want a refusal naming %q", c.remote, err, c.why)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("get %s took %v", c.remote, d)
		}
		if _, err := os.Lstat(local); err == nil {
			t.Errorf("get %s: the local copy of an earlier download is left", c.remote)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != "operator's" {
		t.Errorf("the operator's file was changed: %q", b)
	}
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Remote: filepath.Join(dir, "ok"), Local: local, MaxBytes: 5, Timeout: time.Minute}); err != nil {
		t.Errorf("a regular file of exactly MaxBytes: %v", err)
	}
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Remote: filepath.Join(dir, "ok"), Local: local, MaxBytes: 4}); err == nil {
		t.Error("a file of MaxBytes+1 was taken")
	}
}

// TestGetFIFOSwappedIn: the host swaps a FIFO in for the file between
// get's check and its open (the race a check before the open leaves);
// the download still ends at once, refused, well within the transfer's
// bound, and takes nothing.
func TestGetFIFOSwappedIn(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	dir := filepath.Join(l.HostDir(0), "hostile")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "result.json")
	os.WriteFile(file, []byte("{}\n"), 0o644)
	remote.SetAfterGetCheck(func(string) {
		os.Remove(file)
		if err := syscall.Mkfifo(file, 0o644); err != nil {
			t.Error(err)
		}
	})
	defer remote.SetAfterGetCheck(nil)
	defer func() {
		// Whatever still waits on the FIFO on the host's side (the SFTP
		// server's open) is released: a writer opens and closes it.
		if f, err := os.OpenFile(file, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	local := filepath.Join(t.TempDir(), "f")
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- s.Get(context.Background(), l.Name(0), remote.Transfer{Remote: file, Local: local, MaxBytes: 1 << 20, Timeout: 2 * time.Minute})
	}()
	select {
	case err := <-done:
		var re *remote.RefusedError
		if !errors.As(err, &re) {
			t.Errorf("get of a FIFO swapped in: %v, want a refusal", err)
		}
		t.Logf("refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("get took %v", d)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the FIFO swapped in after the check holds the download (60 s)")
	}
	if _, err := os.Lstat(local); err == nil {
		t.Error("a local file was written")
	}
}
