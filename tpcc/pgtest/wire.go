package pgtest

import (
	"encoding/binary"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// WireCounter is a loopback proxy to a PostgreSQL server that counts what
// its clients send: Sync and Query messages, and turns (client data after
// the server last sent some).
type WireCounter struct {
	URL     string // the proxy's URL: the server's with the proxy's address
	syncs   atomic.Int64
	queries atomic.Int64
	turns   atomic.Int64
}

// WireCount is what a WireCounter counted up to a moment.
type WireCount struct{ Syncs, Queries, Turns int64 }

// Waits is the round trips: each Sync or Query waits for ReadyForQuery.
func (c WireCount) Waits() int64 { return c.Syncs + c.Queries }

// Minus is what was counted between o and c.
func (c WireCount) Minus(o WireCount) WireCount {
	return WireCount{c.Syncs - o.Syncs, c.Queries - o.Queries, c.Turns - o.Turns}
}

// Snapshot is the counts so far.
func (w *WireCounter) Snapshot() WireCount {
	return WireCount{w.syncs.Load(), w.queries.Load(), w.turns.Load()}
}

// StartWireCounter starts a counting proxy to the server of dbURL on a
// loopback port; it stops when the test ends.
func StartWireCounter(t *testing.T, dbURL string) *WireCounter {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.Host = l.Addr().String()
	w := &WireCounter{URL: u.String()}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			var serverSent atomic.Bool // the server spoke since the client's last data
			wg.Add(2)
			go func() { // server to client
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if n > 0 {
						serverSent.Store(true)
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() { // client to server, counted before it is forwarded
				defer wg.Done()
				defer s.Close()
				w.relayClient(c, s, &serverSent)
			}()
		}
	}()
	return w
}

// relayClient forwards the client's bytes to the server, framing its
// messages: the untyped startup message first (length, protocol 3.0),
// then typed ones (a type byte, a length that counts itself).
func (w *WireCounter) relayClient(c, s net.Conn, serverSent *atomic.Bool) {
	var pending []byte
	started := false
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if serverSent.Swap(false) {
				w.turns.Add(1)
			}
			pending = append(pending, buf[:n]...)
			for {
				if !started {
					if len(pending) < 8 {
						break
					}
					l := int(binary.BigEndian.Uint32(pending))
					if len(pending) < l {
						break
					}
					started = binary.BigEndian.Uint32(pending[4:]) == 196608 // 3.0: not an SSL or GSS request
					pending = pending[l:]
					continue
				}
				if len(pending) < 5 {
					break
				}
				l := 1 + int(binary.BigEndian.Uint32(pending[1:]))
				if len(pending) < l {
					break
				}
				switch pending[0] {
				case 'S':
					w.syncs.Add(1)
				case 'Q':
					w.queries.Add(1)
				}
				pending = pending[l:]
			}
			if _, werr := s.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or closed: the relay ends with the connection
		}
	}
}
