package localfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRead reads through every kind of file a hostile plan may name. Each
// case must return within a second: a FIFO opened without O_NONBLOCK, or
// /dev/zero read without a bound, never would.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	okFile := write("ok", []byte("hello\n"), 0o600)
	atBound := write("at-bound", []byte(strings.Repeat("x", 100)), 0o600)
	over := write("over", []byte(strings.Repeat("x", 101)), 0o600)
	empty := write("empty", nil, 0o600)
	goodLink := filepath.Join(dir, "ok-link")
	if err := os.Symlink(okFile, goodLink); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, path string
		want       string // content, or the error's text
		err        bool
		notExist   bool
	}{
		{name: "regular", path: okFile, want: "hello\n"},
		{name: "empty", path: empty, want: ""},
		{name: "at bound", path: atBound, want: strings.Repeat("x", 100)},
		{name: "symlink to regular", path: goodLink, want: "hello\n"},
		{name: "over bound", path: over, err: true, want: "101 bytes, larger than 100 bytes allowed"},
		{name: "fifo", path: fifo, err: true, want: "not a regular file (a named pipe)"},
		{name: "symlink to fifo", path: fifoLink, err: true, want: "not a regular file (a named pipe)"},
		{name: "dev zero", path: "/dev/zero", err: true, want: "not a regular file (a character device)"},
		{name: "symlink to dev zero", path: link, err: true, want: "not a regular file (a character device)"},
		{name: "directory", path: sub, err: true, want: "not a regular file (a directory)"},
		{name: "missing", path: filepath.Join(dir, "missing"), err: true, want: "no such file", notExist: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = Read(tc.path, 100)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("Read(%s) hangs", tc.path)
			}
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path+": ") {
					t.Fatalf("err %v, want %s: ...%q", err, tc.path, tc.want)
				}
				var le *Error
				if !errors.As(err, &le) {
					t.Errorf("%T is not *Error", err)
				}
				if errors.Is(err, os.ErrNotExist) != tc.notExist {
					t.Errorf("errors.Is(err, ErrNotExist) = %v", !tc.notExist)
				}
				if strings.Contains(tc.want, "not a regular") != errors.Is(err, ErrNotRegular) || strings.Contains(tc.want, "larger") != errors.Is(err, ErrTooLarge) {
					t.Errorf("errors.Is(err, ErrNotRegular/ErrTooLarge) wrong for %v", err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestOpenKeepsTheBound: Open refuses by the size fstat reports, before
// anything is read; the caller streams at most that.
func TestOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 2 GiB apparent, nothing written.
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := Open(p, MaxBinary); err == nil || !strings.Contains(err.Error(), "2147483648 bytes, larger than 1 GiB allowed") {
		t.Fatalf("Open: %v", err)
	}
	if _, err := Read(p, MaxLicense); err == nil || !strings.Contains(err.Error(), "larger than 64 KiB") {
		t.Fatalf("Read: %v", err)
	}
	g, st, err := Open(p, 4<<30)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if st.Size() != 2<<30 {
		t.Errorf("size %d", st.Size())
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 1 << 20: "1 MiB", 1 << 30: "1 GiB", 3 << 40: "3 TiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
