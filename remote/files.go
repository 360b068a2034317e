package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/benchrig/benchrig/internal/localfile"
)

// fileSHA256 is the hex sha256 of a local file.
func fileSHA256(path string) (string, error) {
	f, _, err := localfile.Open(path, math.MaxInt64)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sumMismatch is a transferred file whose content is not what was asked.
func sumMismatch(what, path, got, want string) error {
	return fmt.Errorf("%s %s: sha256 %s, want %s", what, path, got, want)
}

// writeLocalAtomic writes dst through a temp file in the same directory
// (so the rename is atomic and a crash leaves no half file under the real
// name), hashing what fill writes; if verify rejects the sha256, the temp
// file is removed and dst left untouched. It returns the written sha256.
func writeLocalAtomic(dst string, mode fs.FileMode, verify func(sum string) error, fill func(w io.Writer) error) (string, error) {
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dst)+".benchrig-*.tmp")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	if err := fill(io.MultiWriter(tmp, h)); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := verify(sum); err != nil {
		return sum, err
	}
	if err := tmp.Chmod(mode.Perm()); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	ok = true
	return sum, nil
}

// copyLocal copies src to dst on this machine with the transfer
// semantics shared by every executor: skip when dst already has the
// content, atomic replace, mode bits (zero keeps src's), sha256 checked
// against want when set.
func copyLocal(src, dst string, mode fs.FileMode, want string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", src)
	}
	if mode == 0 {
		mode = st.Mode().Perm()
	}
	srcSum, err := fileSHA256(src)
	if err != nil {
		return err
	}
	if want != "" && !strings.EqualFold(srcSum, want) {
		return sumMismatch("source", src, srcSum, want)
	}
	if dst == src {
		return errors.New("source and destination are the same file")
	}
	if dstSt, err := os.Stat(dst); err == nil && dstSt.Mode().IsRegular() && dstSt.Size() == st.Size() {
		if sum, err := fileSHA256(dst); err == nil && sum == srcSum {
			if dstSt.Mode().Perm() != mode.Perm() {
				return os.Chmod(dst, mode.Perm())
			}
			return nil
		}
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = writeLocalAtomic(dst, mode, wantSum(dst, srcSum), func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
	return err
}

// wantSum is a verify function for writeLocalAtomic expecting want.
func wantSum(path, want string) func(string) error {
	return func(got string) error {
		if !strings.EqualFold(got, want) {
			return sumMismatch("written", path, got, want)
		}
		return nil
	}
}

// LocalPathFor is PerHostPath for a host name and remote path that come
// from the user (a --target name, a remote path): the result is always
// inside dir. A host name that is not one plain path element ("../x",
// "a/b", "..") or a remote path without a file name ("/", "..") is
// refused, rather than written outside the directory the user named.
func LocalPathFor(dir, host, remotePath string) (string, error) {
	if !plainElement(host) {
		return "", fmt.Errorf("host name %q cannot name a local directory: use letters, digits, '.', '_', '-'", host)
	}
	base := path.Base(remotePath)
	if !plainElement(base) {
		return "", fmt.Errorf("remote path %q names no file", remotePath)
	}
	p := PerHostPath(dir, host, remotePath)
	if rel, err := filepath.Rel(dir, p); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is outside %s", p, dir)
	}
	return p, nil
}

// plainElement says whether s is one path element that stays where it is
// put: not empty, ".", "..", and without a separator or NUL.
func plainElement(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`+"\x00")
}
