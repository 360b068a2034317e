package sshtest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Proxy is a fault-injecting TCP proxy in front of one address (a lab
// host's sshd): what the network between orchestrator and host can do
// to a connection, done to order by a test. tc netem is not available
// in the test containers, so faults are made in userspace.
//
//   - Blackhole: the link goes silent. New connections are accepted
//     (the kernel completes the TCP handshake) but nothing is forwarded
//     in either direction; existing connections stay open and what is
//     sent is held, as a real black hole holds it in retransmission.
//     Keepalives go unanswered, which is what a client must detect.
//   - Reset: every current connection is closed at both ends with a
//     TCP RST, as a rebooted middlebox or a NAT that forgot them does.
//   - Delay and Limit: latency per chunk and a bandwidth cap, both ways.
//
// Heal ends a black hole; what was held is then delivered, unless an
// end closed in between (a client that gave up on keepalives), which
// the other end then sees.
type Proxy struct {
	ln     net.Listener
	target string

	mu       sync.Mutex
	conns    map[*proxyConn]struct{}
	holeEnd  time.Time     // black hole until then (zero: none)
	forever  bool          // black hole until Heal
	open     chan struct{} // closed when the link forwards again
	delay    time.Duration
	rate     int // bytes per second; 0: unlimited
	accepted int
	closed   bool
	// fromClient and toClient count the bytes forwarded each way: what
	// the client (the orchestrator) sent over this link, and received.
	fromClient, toClient int64
	wg                   sync.WaitGroup
}

type proxyConn struct {
	client net.Conn
	dead   chan struct{} // closed by reset

	mu     sync.Mutex
	server net.Conn
	once   sync.Once
}

func (c *proxyConn) reset() {
	c.once.Do(func() {
		close(c.dead)
		c.mu.Lock()
		server := c.server
		c.mu.Unlock()
		for _, x := range []net.Conn{c.client, server} {
			if x == nil {
				continue
			}
			if tc, ok := x.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // close with RST, not FIN
			}
			x.Close()
		}
	})
}

// NewProxy listens on ip (a free port) and forwards to target.
func NewProxy(ip, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Errorf("sshtest: proxy: %w", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[*proxyConn]struct{}{}, open: make(chan struct{})}
	close(p.open)
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is the proxy's "ip:port": dial this instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's port.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// Accepted counts the connections the proxy has accepted: a client that
// reconnected made more than one.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Bytes returns how many bytes the proxy has forwarded from the client
// to the server and back, over every connection so far: what crossed
// this host's link from the orchestrator's side.
func (p *Proxy) Bytes() (fromClient, toClient int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fromClient, p.toClient
}

func (p *Proxy) count(fromClient bool, n int) {
	p.mu.Lock()
	if fromClient {
		p.fromClient += int64(n)
	} else {
		p.toClient += int64(n)
	}
	p.mu.Unlock()
}

// Blackhole silences the link for d (d <= 0: until Heal).
func (p *Proxy) Blackhole(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holeEnd.IsZero() && !p.forever {
		p.open = make(chan struct{})
	}
	if d <= 0 {
		p.forever = true
		return
	}
	end := time.Now().Add(d)
	if end.After(p.holeEnd) {
		p.holeEnd = end
	}
	open := p.open
	time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.open == open && !p.forever && !time.Now().Before(p.holeEnd) {
			p.healLocked()
		}
	})
}

// Heal ends a black hole at once.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.healLocked()
}

func (p *Proxy) healLocked() {
	if p.holeEnd.IsZero() && !p.forever {
		return
	}
	p.holeEnd, p.forever = time.Time{}, false
	close(p.open)
}

// Reset closes every current connection at both ends (RST). New
// connections are forwarded as before.
func (p *Proxy) Reset() {
	p.mu.Lock()
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.reset()
	}
}

// Delay holds every chunk forwarded for d (0: none).
func (p *Proxy) Delay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Limit caps each direction of each connection at bytesPerSec (0: no cap).
func (p *Proxy) Limit(bytesPerSec int) {
	p.mu.Lock()
	p.rate = bytesPerSec
	p.mu.Unlock()
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Heal()
	p.Reset()
	p.wg.Wait()
	return err
}

// gate returns when the link forwards, or false when c was reset.
func (p *Proxy) gate(c *proxyConn) bool {
	p.mu.Lock()
	open := p.open
	p.mu.Unlock()
	select {
	case <-open:
		return true
	case <-c.dead:
		return false
	}
}

func (p *Proxy) shaping() (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay, p.rate
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		cl, err := p.ln.Accept()
		if err != nil {
			return
		}
		c := &proxyConn{client: cl, dead: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			cl.Close()
			return
		}
		p.accepted++
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go p.handle(c)
	}
}

// handle forwards one connection. The upstream connection is made only
// once the link is open: during a black hole the client's handshake
// gets no answer, as with a real one.
func (p *Proxy) handle(c *proxyConn) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		c.reset()
	}()
	// The reader takes what the client sends at once and holds it until
	// the link is open, so a client that gives up during a black hole
	// closes its socket, as it would in front of a real one.
	pending := make(chan []byte, 64)
	go func() {
		defer close(pending)
		for {
			buf := make([]byte, 32<<10)
			n, err := c.client.Read(buf)
			if n > 0 {
				select {
				case pending <- buf[:n]:
				case <-c.dead:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	if !p.gate(c) {
		return
	}
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		return // the client sees the connection close, as at a refused port
	}
	c.mu.Lock()
	c.server = server
	c.mu.Unlock()
	select {
	case <-c.dead: // reset while dialing
		server.Close()
		return
	default:
	}
	done := make(chan struct{}, 2)
	go func() { // client -> server, from what the reader holds
		defer func() { done <- struct{}{} }()
		for b := range pending {
			if !p.forward(c, server, b) {
				c.reset()
				return
			}
			p.count(true, len(b))
		}
		if !p.gate(c) {
			return
		}
		// The client closed (or reset): pass it on once the link is open.
		if tc, ok := server.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	go func() { // server -> client
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 && !p.forward(c, c.client, buf[:n]) {
				c.reset()
				return
			}
			p.count(false, n)
			if errors.Is(err, io.EOF) {
				if p.gate(c) {
					if tc, ok := c.client.(*net.TCPConn); ok {
						_ = tc.CloseWrite()
					}
				}
				return
			}
			if err != nil {
				c.reset()
				return
			}
		}
	}()
	<-done
	<-done
}

// forward writes b to w once the link is open, shaped by delay and rate.
func (p *Proxy) forward(c *proxyConn, w net.Conn, b []byte) bool {
	if !p.gate(c) {
		return false
	}
	delay, rate := p.shaping()
	if delay > 0 {
		time.Sleep(delay)
	}
	for len(b) > 0 {
		chunk := b
		if rate > 0 {
			// Slices of a tenth of a second's worth keep the rate smooth.
			if step := max(rate/10, 1); len(chunk) > step {
				chunk = chunk[:step]
			}
			time.Sleep(time.Duration(float64(len(chunk)) / float64(rate) * float64(time.Second)))
			if !p.gate(c) {
				return false
			}
		}
		if _, err := w.Write(chunk); err != nil {
			return false
		}
		b = b[len(chunk):]
	}
	return true
}
