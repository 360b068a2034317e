package remote_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestPutGzip sends a file's gzip stream (Transfer.Gzip) to a real sshd:
// the host's file is remote.GzipStream of the local one, byte for byte,
// and unpacks to it; a second put finds it there and is skipped; a local
// file whose digest is not the transfer's is refused.
func TestPutGzip(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "benchrig")
	content := bytes.Repeat([]byte("a compressible binary "), 100000)
	if err := os.WriteFile(local, content, 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256Hex(content)
	dst := filepath.Join(l.HostDir(0), "w", ".benchrig.gz.part")
	tr := remote.Transfer{Local: local, Remote: dst, Mode: 0o644, SHA256: sum, Gzip: true}
	if !strings.HasSuffix(tr.String(), "(gzip)") {
		t.Errorf("the transfer's description does not say gzip: %s", tr)
	}
	if err := s.Put(ctx, l.Name(0), tr); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := remote.GzipStream(bytes.NewReader(content))
	if !bytes.Equal(got, want) {
		t.Fatalf("the host has %d bytes, not the %d of the file's gzip stream", len(got), len(want))
	}
	if len(got) > len(content)/10 {
		t.Errorf("stream of %d bytes for %d: not compressed", len(got), len(content))
	}
	zr, err := gzip.NewReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if unpacked, _ := io.ReadAll(zr); !bytes.Equal(unpacked, content) {
		t.Error("the stream does not unpack to the file")
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(dst, old, old)
	if err := s.Put(ctx, l.Name(0), tr); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dst); !st.ModTime().Equal(old) {
		t.Error("an unchanged stream was sent again")
	}
	bad := tr
	bad.SHA256 = strings.Repeat("0", 64)
	bad.Remote = filepath.Join(l.HostDir(0), "w", "other.gz")
	if err := s.Put(ctx, l.Name(0), bad); err == nil {
		t.Error("a local file with another digest was sent")
	}
	if _, err := os.Stat(bad.Remote); err == nil {
		t.Error("the refused stream is on the host")
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
