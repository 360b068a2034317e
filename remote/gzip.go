package remote

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/benchrig/benchrig/internal/localfile"
)

// gzipEntry is one local file's gzip stream (Transfer.Gzip), made once
// per executor however many hosts it is put to, and kept in memory: it
// is sent from there, and its sha256 is what the host's copy is checked
// against.
type gzipEntry struct {
	once sync.Once
	data []byte
	sum  string
	err  error
}

// localGzip returns p's gzip stream and its sha256. The stream is
// compress/gzip's at the default level with an empty header (no name,
// no time), so the same bytes always make the same stream: a host's
// partial copy from an earlier attempt, or from a peer's `benchrig
// serve-file` (the same code), resumes into a whole one.
func (s *SSH) localGzip(p string, st os.FileInfo) ([]byte, string, error) {
	k := sumKey{p, st.Size(), st.ModTime().UnixNano()}
	s.mu.Lock()
	if s.gzips == nil {
		s.gzips = map[sumKey]*gzipEntry{}
	}
	e, ok := s.gzips[k]
	if !ok {
		e = &gzipEntry{}
		s.gzips[k] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		f, _, err := localfile.Open(p, st.Size())
		if err != nil {
			e.err = err
			return
		}
		defer f.Close()
		e.data, e.err = GzipStream(f)
		if e.err != nil {
			e.err = fmt.Errorf("gzip %s: %w", p, e.err)
			return
		}
		h := sha256.Sum256(e.data)
		e.sum = hex.EncodeToString(h[:])
	})
	return e.data, e.sum, e.err
}

// GzipStream is the gzip stream of r as benchrig sends it: default
// level, empty header. The orchestrator's upload and `benchrig
// serve-file` both use it, so every copy of a binary's stream is the
// same bytes and an interrupted download resumes from any of them.
func GzipStream(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(zw, r); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
