package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/semaphore"
)

// Defaults of SSHConfig, chosen for OpenSSH's own defaults.
const (
	// DefaultDialConcurrency bounds SSH handshakes in flight across all
	// hosts. sshd's MaxStartups 10:30:100 starts dropping unauthenticated
	// connections at 10; a shared bastion sees every one of ours.
	DefaultDialConcurrency = 8
	// DefaultSessionsPerHost stays under sshd's MaxSessions 10 (the 11th
	// session on a connection is refused with "open failed").
	DefaultSessionsPerHost = 8
	DefaultConnectTimeout  = 20 * time.Second
	DefaultKeepalive       = 15 * time.Second
	DefaultKeepaliveMax    = 3
	DefaultDialRetries     = 3
	DefaultRetryBackoff    = 250 * time.Millisecond
	DefaultKillGrace       = 5 * time.Second
	DefaultCaptureBytes    = 1 << 20
)

// SSHConfig configures an SSH executor. The zero value is usable: strict
// host key checking against ~/.ssh/known_hosts, the agent plus ~/.ssh/id_*,
// ~/.ssh/config if present, and the defaults above.
type SSHConfig struct {
	// Output receives live output, one host-prefixed line at a time.
	// Nil discards it (Result still captures it).
	Output io.Writer
	// Notices, if set, also gets the line saying a host's stream was cut
	// (LiveHead): the screen, where Output is only a log.
	Notices io.Writer
	// KnownHostsFiles are consulted for host keys; accept-new appends to
	// the first. Default: ~/.ssh/known_hosts.
	KnownHostsFiles []string
	HostKeyPolicy   HostKeyPolicy
	// CreateKnownHosts lets accept-new create the first known_hosts file
	// when it does not exist. Without it only ~/.ssh/known_hosts is
	// created; any other file must already be a known_hosts file.
	CreateKnownHosts bool
	// IdentityFiles are offered to every host after the agent's keys and
	// the target's own. Each must load.
	IdentityFiles []string
	// NoAgent disables ssh-agent even when SSH_AUTH_SOCK is set.
	NoAgent bool
	// SSHConfigFile is the ssh_config to read: "" for ~/.ssh/config when
	// it exists, "none" for no file.
	SSHConfigFile string

	// ConnectTimeout bounds TCP connect plus the SSH handshake and
	// authentication of one attempt (x/crypto's ClientConfig.Timeout
	// covers only the TCP connect: golang/go#50046).
	ConnectTimeout time.Duration
	// KeepaliveInterval is how often an idle-or-busy connection is
	// probed; KeepaliveCountMax unanswered probes in a row close it, which
	// fails its running commands with a TransportError instead of hanging.
	// Negative disables keepalives.
	KeepaliveInterval time.Duration
	KeepaliveCountMax int
	DialConcurrency   int
	SessionsPerHost   int
	// DialRetries is how many times a failed connect (or session open) is
	// retried, with exponential backoff from RetryBackoff and ±50% jitter.
	// Host key and authentication failures are not retried. A command
	// whose connection broke after it started is never retried: it may
	// have run.
	DialRetries  int
	RetryBackoff time.Duration
	// KillGrace is how long a timed-out or cancelled command has between
	// SIGTERM and SIGKILL.
	KillGrace time.Duration
	// CaptureBytes is the tail of stdout and of stderr kept in Result.
	CaptureBytes int

	// Progress, if set, shows a progress bar for each transfer of at
	// least ProgressMinBytes (default 64 MiB).
	Progress         io.Writer
	ProgressMinBytes int64

	// Seed seeds retry jitter and temp names; 0 picks one from the clock.
	Seed uint64
}

func (c *SSHConfig) defaults() error {
	if len(c.KnownHostsFiles) == 0 && c.HostKeyPolicy != HostKeysInsecureIgnore {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("known_hosts: no file given and no home directory: %w", err)
		}
		c.KnownHostsFiles = []string{filepath.Join(home, ".ssh", "known_hosts")}
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.ConnectTimeout, DefaultConnectTimeout)
	def(&c.KeepaliveInterval, DefaultKeepalive)
	def(&c.RetryBackoff, DefaultRetryBackoff)
	def(&c.KillGrace, DefaultKillGrace)
	if c.KeepaliveCountMax <= 0 {
		c.KeepaliveCountMax = DefaultKeepaliveMax
	}
	if c.DialConcurrency <= 0 {
		c.DialConcurrency = DefaultDialConcurrency
	}
	if c.SessionsPerHost <= 0 {
		c.SessionsPerHost = DefaultSessionsPerHost
	}
	// A transfer holds its SFTP session while a second one hashes the file
	// on the host.
	c.SessionsPerHost = max(c.SessionsPerHost, 2)
	if c.DialRetries < 0 {
		c.DialRetries = 0
	} else if c.DialRetries == 0 {
		c.DialRetries = DefaultDialRetries
	}
	if c.CaptureBytes <= 0 {
		c.CaptureBytes = DefaultCaptureBytes
	}
	if c.ProgressMinBytes <= 0 {
		c.ProgressMinBytes = 64 << 20
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	return nil
}

// SSH runs commands and transfers files on hosts over SSH. It keeps one
// connection per host, opened on first use and shared by every command
// and transfer to that host (at most SessionsPerHost at once), and is
// safe for concurrent use. Close it to drop the connections.
type SSH struct {
	cfg     SSHConfig
	eps     map[string]*endpoint
	names   []string
	console *Console
	keys    *hostKeys
	auth    *auth
	dialSem chan struct{}

	mu       sync.Mutex
	conns    map[string]*hostConn // by endpoint key
	rng      *rand.Rand
	progress *mpb.Progress
	sums     map[sumKey]*sumEntry  // local file hashes, see localSHA256
	gzips    map[sumKey]*gzipEntry // local files' gzip streams, see localGzip
	closed   bool
}

// hostConn is the one connection to a host (or jump host).
type hostConn struct {
	ep *endpoint
	// sessions counts session slots: a command takes one, a transfer two
	// (its SFTP channel plus the exec that hashes the file), acquired at
	// once so concurrent transfers cannot deadlock holding one each.
	sessions *semaphore.Weighted

	mu     sync.Mutex // held while dialing: one connection per host
	client *ssh.Client
	dead   chan struct{} // closed when client's connection ends
	// why is the current connection's: why it ended, if known. Each
	// connection has its own, so the goroutines of one that died cannot
	// write into its successor's.
	why atomic.Pointer[atomic.Value]
}

// whyEnded is why the current connection ended, or nil.
func (c *hostConn) whyEnded() error {
	if v := c.why.Load(); v != nil {
		if err, ok := v.Load().(error); ok {
			return err
		}
	}
	return nil
}

// NewSSH returns an executor for targets. It resolves every target
// (ssh_config), opens the agent and loads identity files now, so a bad
// key or config file is reported before any host is touched; it connects
// to nothing until the first Run, Put or Get.
func NewSSH(targets []Target, cfg SSHConfig) (*SSH, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	sc, err := loadSSHConfig(cfg.SSHConfigFile)
	if err != nil {
		return nil, err
	}
	keys, err := newHostKeys(cfg.HostKeyPolicy, cfg.KnownHostsFiles, cfg.CreateKnownHosts)
	if err != nil {
		return nil, err
	}
	a, err := newAuth(!cfg.NoAgent)
	if err != nil {
		return nil, err
	}
	s := &SSH{
		cfg:     cfg,
		eps:     map[string]*endpoint{},
		keys:    keys,
		auth:    a,
		dialSem: make(chan struct{}, cfg.DialConcurrency),
		conns:   map[string]*hostConn{},
		rng:     rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
	}
	for _, t := range targets {
		e, err := sc.resolve(t, cfg.IdentityFiles)
		if err != nil {
			a.close()
			return nil, err
		}
		if _, dup := s.eps[e.name]; dup {
			a.close()
			return nil, fmt.Errorf("host %s: listed twice", e.name)
		}
		for _, hop := range append(append([]*endpoint(nil), e.jumps...), e) {
			if err := a.load(hop); err != nil {
				a.close()
				return nil, err
			}
			if !a.usable(hop) {
				a.close()
				return nil, fmt.Errorf("host %s: no key to authenticate %s@%s with: no ssh-agent and no loadable identity file (tried %s)",
					e.name, hop.user, hop.addr(), strings.Join(hop.identityFiles, ", "))
			}
		}
		s.eps[e.name] = e
		s.names = append(s.names, e.name)
	}
	s.console = NewConsole(cfg.Output, s.names)
	s.console.notices = cfg.Notices
	if sc.warning != "" {
		a.mu.Lock()
		a.warnings = append([]string{sc.warning}, a.warnings...)
		a.mu.Unlock()
	}
	return s, nil
}

// Hosts are the executor's host names, in target order.
func (s *SSH) Hosts() []string { return append([]string(nil), s.names...) }

// Console is where live output goes; callers print their own host lines
// through it to keep the prefix format.
func (s *SSH) Console() *Console { return s.console }

// Warnings are problems that did not stop the executor: identity files
// from ssh_config or ~/.ssh that could not be used, an unreachable agent,
// Match blocks of the default ssh_config, which are not evaluated.
func (s *SSH) Warnings() []string {
	s.auth.mu.Lock()
	defer s.auth.mu.Unlock()
	return append([]string(nil), s.auth.warnings...)
}

// Close closes every connection and the agent, and waits for progress
// bars to finish drawing.
func (s *SSH) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = map[string]*hostConn{}
	p := s.progress
	s.mu.Unlock()
	if p != nil {
		p.Wait()
	}
	var errs []error
	for _, c := range conns {
		c.mu.Lock()
		if c.client != nil {
			_ = c.client.Close() // the error of closing a dead connection says nothing
			c.client = nil
		}
		c.mu.Unlock()
	}
	errs = append(errs, s.auth.close())
	return errors.Join(errs...)
}

func (s *SSH) endpoint(host string) (*endpoint, error) {
	e, ok := s.eps[host]
	if !ok {
		return nil, &UnknownHostError{Host: host}
	}
	return e, nil
}

func (s *SSH) hostConn(e *endpoint) (*hostConn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, &TransportError{Host: e.name, Op: "connect", Err: errors.New("executor closed")}
	}
	c, ok := s.conns[e.key()]
	if !ok {
		c = &hostConn{ep: e, sessions: semaphore.NewWeighted(int64(s.cfg.SessionsPerHost))}
		s.conns[e.key()] = c
	}
	return c, nil
}

// jitter returns d scaled by a random factor in [0.5, 1.5): hosts that
// failed together (a MaxStartups burst) should not retry together.
func (s *SSH) jitter(d time.Duration) time.Duration {
	s.mu.Lock()
	f := 0.5 + s.rng.Float64()
	s.mu.Unlock()
	return time.Duration(float64(d) * f)
}

func (s *SSH) randHex() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%016x", s.rng.Uint64())
}

// client returns the live connection of c, dialing (with retries) if
// there is none or it died.
func (s *SSH) client(ctx context.Context, c *hostConn) (*ssh.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.client != nil {
		select {
		case <-c.dead:
			c.client = nil
		default:
			// The keepalive gave up on it (its Wait may not have
			// returned yet): as good as dead.
			if c.whyEnded() != nil {
				c.client = nil
				break
			}
			return c.client, nil
		}
	}
	var err error
	for attempt := 0; ; attempt++ {
		var cl *ssh.Client
		var heard *heardConn
		cl, heard, err = s.dial(ctx, c.ep)
		if err == nil {
			c.client = cl
			c.dead = make(chan struct{})
			why := new(atomic.Value)
			c.why.Store(why)
			dead := c.dead
			go func() {
				err := cl.Wait()
				if why.Load() == nil && err != nil {
					why.Store(err)
				}
				close(dead)
			}()
			if s.cfg.KeepaliveInterval > 0 {
				go s.keepalive(why, cl, heard, dead)
			}
			return cl, nil
		}
		if attempt >= s.cfg.DialRetries || Permanent(err) || ctx.Err() != nil {
			break
		}
		backoff := s.jitter(s.cfg.RetryBackoff << attempt)
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(backoff):
		}
	}
	return nil, err
}

// Permanent says whether err is a failure to connect that waiting cannot
// heal, so a caller must not retry it (neither SSH's own dial retries nor
// a runner's reconnect budget): a refused host key (unknown, or changed),
// a new key that accept-new could not record (the known_hosts file does
// not exist and may not be created), authentication refused, or no
// algorithm in common. What can heal by waiting is not permanent: a
// refused or reset connection, a timeout, a host gone silent. (The
// caller's own context ending is checked separately.)
func Permanent(err error) bool {
	if err == nil {
		return false
	}
	var hk *HostKeyError
	var kh *KnownHostsError
	if errors.As(err, &hk) || errors.As(err, &kh) {
		return true
	}
	// x/crypto/ssh has no types for these; its messages are stable
	// (client_auth.go, common.go).
	msg := err.Error()
	return strings.Contains(msg, "unable to authenticate") || strings.Contains(msg, "no common algorithm")
}

// dial makes one connection attempt to e, through its jump hosts.
func (s *SSH) dial(ctx context.Context, e *endpoint) (*ssh.Client, *heardConn, error) {
	var jc *ssh.Client
	var hop *endpoint
	if len(e.jumps) > 0 {
		// The jump host's own connection is dialed first, outside the
		// limiter below (which it takes for itself).
		hop = e.jumps[len(e.jumps)-1]
		hc, err := s.hostConn(hop)
		if err != nil {
			return nil, nil, err
		}
		if jc, err = s.client(ctx, hc); err != nil {
			return nil, nil, &TransportError{Host: e.name, Op: "jump " + hop.addr(), Err: err}
		}
	}

	// The limiter covers TCP connect and handshake: sshd counts a
	// connection against MaxStartups from accept until authentication.
	select {
	case s.dialSem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, &TransportError{Host: e.name, Op: "dial " + e.addr(), Err: ctx.Err()}
	}
	defer func() { <-s.dialSem }()
	var raw net.Conn
	var err error
	if jc != nil {
		dctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
		raw, err = jc.DialContext(dctx, "tcp", e.addr())
		cancel()
		if err != nil {
			return nil, nil, &TransportError{Host: e.name, Op: "dial " + e.addr() + " via " + hop.addr(), Err: err}
		}
	} else {
		d := net.Dialer{Timeout: s.cfg.ConnectTimeout}
		raw, err = d.DialContext(ctx, "tcp", e.addr())
		if err != nil {
			return nil, nil, &TransportError{Host: e.name, Op: "dial " + e.addr(), Err: err}
		}
	}

	// The handshake is where dials to a host that accepts TCP but never
	// speaks SSH hang (golang/go#15113, #21941); a timer that closes the
	// connection bounds it, and works on tunnelled connections, which do
	// not support deadlines.
	var timedOut atomic.Bool
	timer := time.AfterFunc(s.cfg.ConnectTimeout, func() { timedOut.Store(true); raw.Close() })
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	cc := &ssh.ClientConfig{
		User:              e.user,
		Auth:              []ssh.AuthMethod{s.auth.method(e)},
		HostKeyCallback:   s.keys.callback,
		HostKeyAlgorithms: s.keys.algorithms(e.addr()),
		Timeout:           s.cfg.ConnectTimeout,
	}
	heard := &heardConn{Conn: raw}
	heard.heard.Store(time.Now().UnixNano())
	conn, chans, reqs, err := ssh.NewClientConn(heard, e.addr(), cc)
	timer.Stop()
	stop()
	if err != nil {
		raw.Close()
		switch {
		case timedOut.Load():
			err = fmt.Errorf("no SSH handshake within %v: %w", s.cfg.ConnectTimeout, err)
		case ctx.Err() != nil:
			err = ctx.Err()
		}
		return nil, nil, &TransportError{Host: e.name, Op: "handshake " + e.user + "@" + e.addr(), Err: err}
	}
	return ssh.NewClient(conn, chans, reqs), heard, nil
}

// heardConn records when the peer last sent anything. A keepalive reply
// queues behind what the connection is sending (an upload of a large
// binary), so a late reply on a connection that is still receiving is
// not a dead peer; a black hole sends nothing at all.
type heardConn struct {
	net.Conn
	heard atomic.Int64 // unix nanoseconds of the last read that returned data
}

func (c *heardConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.heard.Store(time.Now().UnixNano())
	}
	return n, err
}

// silentFor is how long the peer has sent nothing.
func (c *heardConn) silentFor() time.Duration {
	return time.Since(time.Unix(0, c.heard.Load()))
}

// keepalive probes cl until it dies, closing it after KeepaliveCountMax
// probes in a row go unanswered while the peer sends nothing at all (a
// black hole is noticed within about 2 x KeepaliveCountMax intervals). OpenSSH answers keepalive@openssh.com
// with a failure reply (ok=false, err=nil); any reply proves liveness.
func (s *SSH) keepalive(why *atomic.Value, cl *ssh.Client, heard *heardConn, dead <-chan struct{}) {
	interval := s.cfg.KeepaliveInterval
	t := time.NewTicker(interval)
	defer t.Stop()
	misses := 0
	for {
		select {
		case <-dead:
			return
		case <-t.C:
		}
		reply := make(chan error, 1)
		go func() {
			_, _, err := cl.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		select {
		case <-dead:
			return
		case err := <-reply:
			if err != nil {
				return // the connection is gone; Wait reports it
			}
			misses = 0
		case <-time.After(interval):
			if heard.silentFor() < interval {
				// Unanswered, but the peer is sending: the probe waits
				// behind our own traffic.
				misses = 0
				continue
			}
			misses++
			if misses >= s.cfg.KeepaliveCountMax {
				why.Store(fmt.Errorf("no reply to %d keepalives %v apart: peer presumed dead", misses, interval))
				cl.Close()
				return
			}
		}
	}
}

// session opens a session on host's connection, holding one of its
// session slots until release is called; held means the caller (a
// transfer) already holds one for it.
func (s *SSH) session(ctx context.Context, e *endpoint, held bool) (*ssh.Session, *hostConn, func(), error) {
	c, err := s.hostConn(e)
	if err != nil {
		return nil, nil, nil, err
	}
	release := func() {}
	if !held {
		if err := c.sessions.Acquire(ctx, 1); err != nil {
			return nil, nil, nil, err
		}
		release = func() { c.sessions.Release(1) }
	}
	for attempt := 0; ; attempt++ {
		cl, err := s.client(ctx, c)
		if err != nil {
			release()
			var te *TransportError
			if errors.As(err, &te) {
				return nil, nil, nil, err
			}
			return nil, nil, nil, &TransportError{Host: e.name, Op: "connect", Err: err}
		}
		sess, err := cl.NewSession()
		if err == nil {
			return sess, c, release, nil
		}
		// A session can fail to open because the connection just died
		// (redial) or because the server is at MaxSessions through other
		// clients ("open failed": wait and retry). A connection that died
		// before its end was noticed (a reset a moment ago) is dropped and
		// dialed again at once, retries or not: no command was sent.
		if dropped := s.dropDead(c, cl, err); dropped && attempt == 0 && ctx.Err() == nil {
			continue
		}
		if attempt >= s.cfg.DialRetries || ctx.Err() != nil {
			release()
			return nil, nil, nil, &TransportError{Host: e.name, Op: "session", Err: err}
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.jitter(s.cfg.RetryBackoff << attempt)):
		}
	}
}

// dropDead forgets cl as c's connection when err (from opening a session
// on it) says the connection is gone, and reports whether it did.
func (s *SSH) dropDead(c *hostConn, cl *ssh.Client, err error) bool {
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		return false
	}
	c.mu.Lock()
	if c.client == cl {
		c.client = nil
	}
	c.mu.Unlock()
	_ = cl.Close() // it is dead already; closing ends its Wait
	return true
}

// errCmdTimeout is the cause of a context ended by Cmd.Timeout.
var errCmdTimeout = errors.New("command timeout")

// Run runs c on host and waits for it. Live output goes to the Console;
// Result holds the tail of each stream. Errors: *ExitError (non-zero
// exit or death by signal, Result filled), *TimeoutError (Cmd.Timeout
// expired), *TransportError (no connection, or it broke: the command may
// or may not have run), *UnknownHostError, or the context's error when
// ctx ended. On timeout or cancellation the remote command gets SIGTERM,
// then SIGKILL after KillGrace, and its session is closed (closing alone
// would leave a non-pty command running).
func (s *SSH) Run(ctx context.Context, host string, c Cmd) (Result, error) {
	return s.run(ctx, host, c, c.live(), false)
}

// run is Run with the live console optional and, for a transfer's own
// commands, the session slot already held.
func (s *SSH) run(ctx context.Context, host string, c Cmd, live, held bool) (Result, error) {
	start := time.Now()
	res := Result{Host: host, ExitCode: -1}
	e, err := s.endpoint(host)
	if err != nil {
		return res, err
	}
	stdin, err := c.RevealStdin()
	if err != nil {
		return res, fmt.Errorf("host %s: %w", host, err)
	}
	line := ShellJoin(c)
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.Timeout, errCmdTimeout)
		defer cancel()
	}
	sess, hc, release, err := s.session(ctx, e, held)
	if err != nil {
		res.Duration = time.Since(start)
		return res, s.stopped(ctx, host, line, c, nil, err)
	}
	defer release()
	defer sess.Close()

	outTail := &tailBuffer{max: s.cfg.CaptureBytes}
	errTail := &tailBuffer{max: s.cfg.CaptureBytes}
	var outLive, errLive *LineWriter
	if live {
		outLive, errLive = s.console.Writer(host), s.console.Writer(host)
		sess.Stdout = io.MultiWriter(outTail, outLive)
		sess.Stderr = io.MultiWriter(errTail, errLive)
	} else {
		sess.Stdout, sess.Stderr = outTail, errTail
	}
	if c.Tap != nil {
		sess.Stdout = io.MultiWriter(sess.Stdout, c.Tap)
	}
	if stdin != "" {
		sess.Stdin = strings.NewReader(stdin)
	}
	if err := sess.Start(line); err != nil {
		res.Duration = time.Since(start)
		return res, &TransportError{Host: host, Op: "exec", Err: err}
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	var stopped bool
	select {
	case err = <-done:
	case <-ctx.Done():
		stopped = true
		err = s.stop(sess, done)
	}
	if live {
		outLive.Close()
		errLive.Close()
	}
	res.Stdout, res.Stderr = outTail.Bytes(), errTail.Bytes()
	res.Duration = time.Since(start)
	if stopped {
		return res, s.stopped(ctx, host, line, c, res.Stderr, err)
	}
	if err == nil {
		res.ExitCode = 0
		return res, nil
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		xe := &ExitError{Host: host, Cmd: line, Code: ee.ExitStatus(), Signal: ee.Signal(), StderrTail: lastLines(res.Stderr, 5)}
		if xe.Signal != "" {
			xe.Code = -1
		}
		res.ExitCode = xe.Code
		return res, xe
	}
	// ExitMissingError, io.EOF, ...: the channel ended without a status,
	// which means the connection (or the server process) went away.
	if why := hc.whyEnded(); why != nil {
		err = fmt.Errorf("%w (%v)", err, why)
	}
	return res, &TransportError{Host: host, Op: "run", Err: err}
}

// stop ends a running command: SIGTERM to its process group, SIGKILL
// after the grace period, then the session is closed.
func (s *SSH) stop(sess *ssh.Session, done <-chan error) error {
	_ = sess.Signal(ssh.SIGTERM) // an error means the session is already gone
	select {
	case err := <-done:
		return err
	case <-time.After(s.cfg.KillGrace):
	}
	_ = sess.Signal(ssh.SIGKILL)
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
	}
	sess.Close()
	return <-done
}

// stopped is the error for a command that ctx ended (or that could not
// start because it did).
func (s *SSH) stopped(ctx context.Context, host, line string, c Cmd, stderr []byte, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if errors.Is(context.Cause(ctx), errCmdTimeout) {
		return &TimeoutError{Host: host, Cmd: line, Timeout: c.Timeout, StderrTail: lastLines(stderr, 5)}
	}
	return fmt.Errorf("host %s: %s: stopped: %w", host, line, ctx.Err())
}

// Connect opens (or checks) the connection to host without running
// anything: a pre-flight for a stage, so an unreachable host or a refused
// key is reported before work starts anywhere.
func (s *SSH) Connect(ctx context.Context, host string) error {
	e, err := s.endpoint(host)
	if err != nil {
		return err
	}
	c, err := s.hostConn(e)
	if err != nil {
		return err
	}
	_, err = s.client(ctx, c)
	return err
}

// DialContext opens a TCP connection from host to addr through host's SSH
// connection (a direct-tcpip channel, like ssh -L): how the orchestrator
// reaches a database port that is not exposed to it, e.g. as pgx's
// DialFunc. It fails with a TransportError when the host is unreachable
// and with the server's refusal when forwarding is disabled.
func (s *SSH) DialContext(ctx context.Context, host, network, addr string) (net.Conn, error) {
	e, err := s.endpoint(host)
	if err != nil {
		return nil, err
	}
	c, err := s.hostConn(e)
	if err != nil {
		return nil, err
	}
	cl, err := s.client(ctx, c)
	if err != nil {
		return nil, err
	}
	conn, err := cl.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("host %s: forward to %s: %w", host, addr, err)
	}
	return conn, nil
}
