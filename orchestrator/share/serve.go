package share

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path"
	"time"

	"github.com/benchrig/benchrig/internal/localfile"
	"github.com/benchrig/benchrig/remote"
)

// MaxFor bounds how long one server may run: a server left behind by an
// orchestrator that died goes away by itself.
const MaxFor = 24 * time.Hour

// Server serves one file's gzip stream at Path.
type Server struct {
	// Listen is "addr:port", the host's plan address: the one the other
	// hosts reach it by.
	Listen string
	// File is the file whose gzip stream is served.
	File string
	// Stream, if it exists, is File's gzip stream as this host received
	// it (checked by the fetch that kept it), served byte for byte: no
	// compressing on a host that may be one of several starting at once,
	// and the same bytes as every other copy, so a fetch cut short can
	// resume from any server. Else the stream is made from File
	// (remote.GzipStream) once, at start.
	Stream string
	// For is how long it serves before it exits by itself (at most MaxFor).
	For time.Duration
	// Log gets a line when serving starts and one per request.
	Log io.Writer
}

// URLPath is where a server of file serves its gzip stream.
func URLPath(file string) string { return "/" + path.Base(file) + ".gz" }

// Run serves until ctx ends or For has passed (both: nil). A listen
// address in use or not this host's is an error at once: the hosts that
// would fetch from here then fall back to a direct upload.
func (s *Server) Run(ctx context.Context) error {
	if s.For <= 0 || s.For > MaxFor {
		return fmt.Errorf("serve-file: --for %s: from 1ns to %s", s.For, MaxFor)
	}
	// Listen first: a host that connects while the stream is made waits
	// in the backlog instead of being refused (the fetch starts as soon
	// as the detached job is).
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return fmt.Errorf("serve-file: %w", err)
	}
	defer ln.Close()
	gz, from, err := s.stream()
	if err != nil {
		return fmt.Errorf("serve-file: %w", err)
	}
	name := URLPath(s.File)
	log := s.Log
	if log == nil {
		log = io.Discard
	}
	fmt.Fprintf(log, "serving %s's gzip stream (%d bytes, %s) as http://%s%s for %s\n", s.File, len(gz), from, ln.Addr(), name, s.For)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != name || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintf(log, "%s %s range %q\n", r.RemoteAddr, r.Method, r.Header.Get("Range"))
			w.Header().Set("Content-Type", "application/gzip")
			// ServeContent answers Range requests: a fetch cut short
			// resumes with curl -C - where it stopped.
			http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(gz))
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       30 * time.Second,
	}
	ctx, cancel := context.WithTimeout(ctx, s.For)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve-file: %w", err)
	}
	return nil
}

// Args are `benchrig serve-file`'s flags.
type Args struct {
	Listen string        `flag:"listen" usage:"serve on ADDR:PORT (this host's plan address)" arg:"ADDR:PORT"`
	Stream string        `flag:"stream" usage:"serve GZ, FILE's gzip stream as this host received it, when it exists" arg:"GZ"`
	For    time.Duration `flag:"for" usage:"exit after this long"`
}

// stream is File's gzip stream: Stream's bytes when that file exists,
// else made from File; from says which.
func (s *Server) stream() (gz []byte, from string, err error) {
	if s.Stream != "" {
		f, st, err := localfile.Open(s.Stream, localfile.MaxBinary)
		if err == nil {
			defer f.Close()
			gz, err = io.ReadAll(io.LimitReader(f, st.Size()))
			if err != nil {
				return nil, "", err
			}
			return gz, "kept in " + s.Stream, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", err
		}
	}
	f, _, err := localfile.Open(s.File, localfile.MaxBinary)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	gz, err = remote.GzipStream(io.LimitReader(f, localfile.MaxBinary))
	if err != nil {
		return nil, "", fmt.Errorf("gzip %s: %w", s.File, err)
	}
	return gz, "made from " + s.File, nil
}
