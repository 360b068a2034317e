package localfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Bounds per kind of file: each far above any real file of the kind and
// far below what would exhaust memory.
const (
	// MaxSSHConfig bounds an ssh_config file (a large one is a few
	// hundred lines).
	MaxSSHConfig = 1 << 20
	// MaxIdentity bounds a private key (an RSA 16384-bit key in PEM is
	// about 12 KiB).
	MaxIdentity = 1 << 20
	// MaxKnownHosts bounds a known_hosts file (about 100 bytes to 1 KiB a
	// key: some hundred thousand keys).
	MaxKnownHosts = 64 << 20
	// MaxLicense bounds a licence key file (a CockroachDB key is a few
	// hundred bytes).
	MaxLicense = 64 << 10
	// MaxBinary bounds a binary uploaded to hosts (a cockroach binary is
	// about 200 MiB).
	MaxBinary = 1 << 30
)

// The causes of an Error that are not the system's: errors.Is tells them.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// Error is a local file that cannot be used. It never holds the file's
// content, which may be a secret.
type Error struct {
	Path string
	Msg  string
	Err  error // the cause, if any (os.ErrNotExist, ...)
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return e.Path + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens path for reading if it is a regular file of at most limit
// bytes, without blocking on a FIFO and without opening a device. The
// caller reads at most limit bytes from it (Read does) and closes it.
func Open(path string, limit int64) (*os.File, fs.FileInfo, error) {
	before, err := os.Stat(path)
	if err != nil {
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	if err := check(path, before, limit); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	if err := check(path, st, limit); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !os.SameFile(before, st) {
		f.Close()
		return nil, nil, &Error{Path: path, Msg: "changed while it was being opened"}
	}
	return f, st, nil
}

// Read returns the content of path, a regular file of at most limit
// bytes (see Open).
func Read(path string, limit int64) ([]byte, error) {
	f, _, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte more than allowed tells a file that grew past the bound
	// since fstat from one at the bound.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, Msg: "larger than " + Size(limit) + " allowed", Err: ErrTooLarge}
	}
	return data, nil
}

// check says whether st is a regular file of at most limit bytes.
func check(path string, st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return &Error{Path: path, Msg: "not a regular file (" + kind(st.Mode()) + ")", Err: ErrNotRegular}
	}
	if st.Size() > limit {
		return &Error{Path: path, Msg: fmt.Sprintf("%d bytes, larger than %s allowed", st.Size(), Size(limit)), Err: ErrTooLarge}
	}
	return nil
}

// kind names a non-regular file's type for a message.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}

// unwrapPath drops the *PathError around err: Error names the path once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Size formats n bytes for a message: "1 MiB", "1.5 GiB", "300 bytes".
func Size(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f, u = f/1024, u+1
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
