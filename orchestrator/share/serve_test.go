package share

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
)

// freeAddr is a free 127.0.0.1 port.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start serves file in the background; the returned func stops it and
// returns Run's error.
func start(t *testing.T, s *Server) func() error {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", s.Listen); err == nil {
			c.Close()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() error { cancel(); return <-done }
}

// TestServe: the file's gzip stream at its path, whole and by range;
// nothing else; the server ends when told to.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "benchrig")
	content := bytes.Repeat([]byte("benchrig binary "), 10000)
	if err := os.WriteFile(file, content, 0o755); err != nil {
		t.Fatal(err)
	}
	log := &syncbuf.Buffer{}
	s := &Server{Listen: freeAddr(t), File: file, For: time.Minute, Log: log}
	stop := start(t, s)
	base := "http://" + s.Listen
	resp, err := http.Get(base + "/benchrig.gz")
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	zr, err := gzip.NewReader(bytes.NewReader(whole))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("the stream does not unpack to the file (%v)", err)
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/benchrig.gz", nil)
	req.Header.Set("Range", "bytes=100-")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(tail, whole[100:]) {
		t.Errorf("range: status %d, %d bytes; want 206 and the stream from byte 100", resp.StatusCode, len(tail))
	}
	for _, p := range []string{"/", "/benchrig", "/etc/passwd", "/../benchrig.gz"} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, resp.StatusCode)
		}
	}
	resp, err = http.Post(base+"/benchrig.gz", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST: status %d, want 404", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Errorf("stopped server: %v", err)
	}
	if !strings.Contains(log.String(), `range "bytes=100-"`) {
		t.Errorf("log does not show the range request:\n%s", log)
	}
}

// TestServeBounded: a server exits by itself after For; a busy address,
// a missing file and an unbounded For are errors at once.
func TestServeBounded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "benchrig")
	if err := os.WriteFile(file, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{Listen: freeAddr(t), File: file, For: 300 * time.Millisecond}
	began := time.Now()
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("ran %s past its --for", took)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, bad := range []Server{
		{Listen: busy.Addr().String(), File: file, For: time.Minute},
		{Listen: freeAddr(t), File: filepath.Join(dir, "missing"), For: time.Minute},
		{Listen: freeAddr(t), File: dir, For: time.Minute},
		{Listen: freeAddr(t), File: file, For: 0},
		{Listen: freeAddr(t), File: file, For: MaxFor + time.Second},
	} {
		if err := bad.Run(context.Background()); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestServeKeptStream: a kept stream is served byte for byte (not made
// again); without one, the stream is made from the file.
func TestServeKeptStream(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "benchrig")
	if err := os.WriteFile(file, []byte("the binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, ".benchrig.gz")
	if err := os.WriteFile(kept, []byte("kept stream bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	get := func(s *Server) []byte {
		stop := start(t, s)
		defer stop()
		resp, err := http.Get("http://" + s.Listen + "/benchrig.gz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	if got := get(&Server{Listen: freeAddr(t), File: file, Stream: kept, For: time.Minute}); string(got) != "kept stream bytes" {
		t.Errorf("served %q, not the kept stream", got)
	}
	got := get(&Server{Listen: freeAddr(t), File: file, Stream: filepath.Join(dir, "missing.gz"), For: time.Minute})
	zr, err := gzip.NewReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(zr); string(b) != "the binary" {
		t.Errorf("made stream unpacks to %q", b)
	}
}
