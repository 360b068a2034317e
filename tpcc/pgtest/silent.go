package pgtest

import (
	"net"
	"sync"
	"testing"
)

// SilentServer accepts TCP connections on loopback and never answers: a
// connection stays in its startup handshake until the client gives up. It
// counts the connections open at once and the most there ever were, which
// is how the dial and warm-up tests see how many connections a run
// establishes to one URL at a time.
type SilentServer struct {
	ln        net.Listener
	mu        sync.Mutex
	open, top int
}

// NewSilentServer listens on 127.0.0.1 until the test ends.
func NewSilentServer(t testing.TB) *SilentServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SilentServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.open++
			s.top = max(s.top, s.open)
			s.mu.Unlock()
			go func() {
				var b [512]byte
				for {
					if _, err := c.Read(b[:]); err != nil {
						break
					}
				}
				c.Close()
				s.mu.Lock()
				s.open--
				s.mu.Unlock()
			}()
		}
	}()
	return s
}

// URL is a connection URL of the server.
func (s *SilentServer) URL() string {
	return "postgres://u@" + s.ln.Addr().String() + "/db?sslmode=disable"
}

// Top is the most connections that were open at once.
func (s *SilentServer) Top() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.top
}
