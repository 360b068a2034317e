package remote_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

func writeRandom(t testing.TB, path string, n int) string {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPutGet uploads to several hosts with a checksum, checks content and
// mode on the host side, re-uploads (skipped: the remote file's mtime is
// untouched), then downloads into per-host folders.
func TestPutGet(t *testing.T) {
	l := sshtest.StartT(t, 3)
	s := newSSH(t, l, nil)
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "payload.bin")
	sum := writeRandom(t, local, 5<<20+123)

	remoteOf := func(i int) string { return filepath.Join(l.HostDir(i), "in", "payload.bin") }
	outs := remote.Each(ctx, s.Hosts(), 0, func(ctx context.Context, host string) error {
		i := indexOf(s.Hosts(), host)
		return s.Put(ctx, host, remote.Transfer{Local: local, Remote: remoteOf(i), Mode: 0o750, SHA256: sum})
	})
	if err := remote.Failed(outs); err != nil {
		t.Fatal(err)
	}
	for i := range l.N() {
		st, err := os.Stat(remoteOf(i))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o750 {
			t.Errorf("host %d: mode %v", i, st.Mode().Perm())
		}
		got, _ := os.ReadFile(remoteOf(i))
		if s := sha256.Sum256(got); hex.EncodeToString(s[:]) != sum {
			t.Errorf("host %d: content differs", i)
		}
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(remoteOf(i)), ".*tmp")); len(m) > 0 {
			t.Errorf("host %d: temp files left: %v", i, m)
		}
	}

	// Unchanged: skipped. An old mtime proves the file was not rewritten.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(remoteOf(0), old, old)
	if err := s.Put(ctx, l.Name(0), remote.Transfer{Local: local, Remote: remoteOf(0), Mode: 0o750}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(remoteOf(0)); !st.ModTime().Equal(old) {
		t.Errorf("unchanged file was rewritten (mtime %v)", st.ModTime())
	}
	// Changed remote content of the same size: uploaded again.
	os.WriteFile(remoteOf(0), bytes.Repeat([]byte("x"), 5<<20+123), 0o750)
	if err := s.Put(ctx, l.Name(0), remote.Transfer{Local: local, Remote: remoteOf(0)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(remoteOf(0)); bytes.Count(got[:100], []byte("x")) == 100 {
		t.Error("changed remote file was not replaced")
	}
	// A wrong expected checksum fails and leaves the remote file alone.
	err := s.Put(ctx, l.Name(1), remote.Transfer{Local: local, Remote: remoteOf(1) + ".2", SHA256: strings.Repeat("0", 64)})
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("wrong sha256: err = %v", err)
	}
	if _, err := os.Stat(remoteOf(1) + ".2"); err == nil {
		t.Error("file created despite checksum mismatch")
	}

	// A directory as the target is refused, not filled with a temp file.
	err = s.Put(ctx, l.Name(1), remote.Transfer{Local: local, Remote: filepath.Dir(remoteOf(1))})
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("put onto a directory: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(remoteOf(1)), "*.tmp")); len(m) > 0 {
		t.Errorf("temp files left in the directory: %v", m)
	}

	dir := t.TempDir()
	outs = remote.Each(ctx, s.Hosts(), 0, func(ctx context.Context, host string) error {
		i := indexOf(s.Hosts(), host)
		return s.Get(ctx, host, remote.Transfer{Local: remote.PerHostPath(dir, host, remoteOf(i)), Remote: remoteOf(i)})
	})
	if err := remote.Failed(outs); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.Hosts() {
		p := filepath.Join(dir, h, "payload.bin")
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := sha256.Sum256(got); hex.EncodeToString(s[:]) != sum {
			t.Errorf("%s: downloaded content differs", h)
		}
	}
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Local: filepath.Join(dir, "x"), Remote: remoteOf(0), SHA256: strings.Repeat("1", 64)}); err == nil {
		t.Error("get with a wrong sha256 succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("get with a wrong sha256 left a file")
	}
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Local: filepath.Join(dir, "y"), Remote: "/nonexistent/file"}); err == nil || strings.Contains(err.Error(), "TransportError") {
		t.Errorf("get of a missing file: %v", err)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// TestPutProgress draws progress bars (to a buffer) for a transfer over
// the threshold and checks Close returns once they are done.
func TestPutProgress(t *testing.T) {
	l := sshtest.StartT(t, 1)
	var prog syncbuf.Buffer
	s := newSSH(t, l, func(c *remote.SSHConfig) {
		c.Progress = &prog
		c.ProgressMinBytes = 1 << 20
	})
	local := filepath.Join(t.TempDir(), "big")
	writeRandom(t, local, 3<<20)
	ctx := context.Background()
	dst := filepath.Join(l.HostDir(0), "big")
	if err := s.Put(ctx, l.Name(0), remote.Transfer{Local: local, Remote: dst}); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Local: local + ".back", Remote: dst}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung waiting for progress bars")
	}
	if !strings.Contains(prog.String(), l.Name(0)+" big") {
		t.Errorf("no progress bar drawn:\n%q", prog.String())
	}
}

// TestConcurrentTransfersOneHost: more transfers to one host than it has
// session slots, twice (the second round takes the skip path, which
// hashes while the SFTP channel is open): none may deadlock.
func TestConcurrentTransfersOneHost(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	local := filepath.Join(t.TempDir(), "f")
	writeRandom(t, local, 256<<10)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for round := 0; round < 2; round++ {
		names := make([]string, 12)
		for i := range names {
			names[i] = filepath.Join(l.HostDir(0), "conc", string(rune('a'+i)))
		}
		outs := remote.Each(ctx, names, 0, func(ctx context.Context, dst string) error {
			if err := s.Put(ctx, l.Name(0), remote.Transfer{Local: local, Remote: dst}); err != nil {
				return err
			}
			return s.Get(ctx, l.Name(0), remote.Transfer{Local: dst + ".back", Remote: dst})
		})
		if err := remote.Failed(outs); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// TestPutKilledHost: the host dies mid-upload; the upload fails with a
// TransportError and leaves no file under the target name.
func TestPutKilledHost(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, func(c *remote.SSHConfig) { c.DialRetries = -1 })
	local := filepath.Join(t.TempDir(), "big")
	writeRandom(t, local, 128<<20)
	dst := filepath.Join(l.HostDir(0), "big")
	if err := s.Connect(context.Background(), l.Name(0)); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(150 * time.Millisecond)
		l.Kill(0)
	}()
	err := s.Put(context.Background(), l.Name(0), remote.Transfer{Local: local, Remote: dst})
	if !errors.As(err, new(*remote.TransportError)) {
		t.Fatalf("err = %v (%T), want a TransportError", err, err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Error("a partial upload appeared under the target name")
	}
}
