//go:build linux

package tpcc

import (
	"context"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
)

// rawIO makes a driver connection's socket reads and writes raw system
// calls: non-blocking read(2) and write(2) without the Go runtime's
// syscall entry, waiting for readiness on the runtime's poller as net's
// own reads do.
//
// Why: between replies a driver process is idle, and Go's monitor thread
// (sysmon) sleeps. Every system call entered through the runtime wakes it
// (entersyscall), and once awake it polls every 20 µs until the process
// is idle again: 23 % of a no-wait run's client CPU (perf, docs/measure).
// A non-blocking read or write never blocks, so it needs none of what the
// runtime's entry gives a call that may (handing its P to another thread),
// and sysmon sleeps on.
func rawIO(cfg *pgconn.Config) {
	dial := cfg.DialFunc
	if dial == nil {
		return // pgconn dials as it would; ParseConfig always sets one
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc, ok := c.(*net.TCPConn)
		if !ok {
			return c, nil // a Unix socket or a custom dialer's conn: as it is
		}
		rc, err := tc.SyscallConn()
		if err != nil {
			return c, nil
		}
		return &rawConn{TCPConn: tc, rc: rc}, nil
	}
}

// rawConn is a TCP connection read and written by raw system calls; every
// other method (deadlines, Close, addresses) is the TCPConn's.
type rawConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

// Read reads what the socket holds, waiting on the poller while it holds
// nothing (deadlines apply there).
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until readable
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting on the poller while the socket's buffer
// is full.
func (c *rawConn) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(r)
				continue
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait until writable
			}
			errno = e
			return true
		}
		return true
	})
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// opError wraps err as net's own reads and writes do (a deadline is a
// net.Error whose Timeout is true), in place of RawConn's own wrapping
// (its Op is "raw-read").
func (c *rawConn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
