package sshtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/remote"
)

// SSHD is the server binary the lab runs. Tests skip when it is absent.
const SSHD = "/usr/sbin/sshd"

// RootUser is the unprivileged user sshd runs as when the lab is started
// by root (CI runs as root; .ci/setup creates the user).
const RootUser = "benchrig"

// ErrNoSSHD is returned by Start when the sshd binary is not installed.
var ErrNoSSHD = errors.New("sshtest: " + SSHD + " not found (install openssh-server, or run .ci/setup)")

// Option changes how a Lab is started.
type Option func(*options)

type options struct {
	maxSessions int
	maxStartups string
	extra       []string
	firstIP     int
	proxies     bool
	nofile      uint64
}

// WithMaxSessions sets sshd's MaxSessions (default: sshd's own, 10).
func WithMaxSessions(n int) Option { return func(o *options) { o.maxSessions = n } }

// WithMaxStartups sets sshd's MaxStartups, e.g. "100:30:200" (default:
// sshd's own, 10:30:100). Tests of the dial limiter keep the default.
func WithMaxStartups(spec string) Option { return func(o *options) { o.maxStartups = spec } }

// WithConfig appends raw lines to every host's sshd_config.
func WithConfig(lines ...string) Option {
	return func(o *options) { o.extra = append(o.extra, lines...) }
}

// WithFirstIP sets the last octet of the first host's address (default 2,
// so hosts are 127.0.0.2, 127.0.0.3, ...).
func WithFirstIP(octet int) Option { return func(o *options) { o.firstIP = octet } }

// WithProxies puts a fault-injecting Proxy in front of every host: the
// addresses Targets, Addr, WriteSSHConfig and the known_hosts file give
// out are the proxies', so tests can blackhole or reset a host's link
// (Lab.Proxy). The sshd behind keeps its own port across Restart.
func WithProxies() Option { return func(o *options) { o.proxies = true } }

// WithNofile starts every sshd with its open-files limit (soft and hard)
// at n, as a host whose limits.conf says so: every login inherits it
// (preflight's tests of a node whose limit is too low).
func WithNofile(n uint64) Option { return func(o *options) { o.nofile = n } }

// Lab is a set of running sshd servers, one per fake host.
type Lab struct {
	dir        string
	user       string
	cred       *syscall.Credential // nil: run sshd as ourselves
	uid, gid   int
	identity   string
	knownHosts string
	hosts      []*host
	nofile     uint64 // WithNofile; 0: inherited
}

type host struct {
	name string
	ip   string
	port int
	dir  string
	keys []ssh.PublicKey
	// proxy, with WithProxies, is what clients are given to dial.
	proxy *Proxy

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been reaped
	// paused are the processes Pause stopped, for Resume to continue.
	paused []int
}

// Start creates n hosts under dir and starts their sshd servers. dir is
// created if needed; when run as root it must be reachable by RootUser
// (every parent directory searchable by others), because sshd runs as
// that user and reads its config and keys from there.
func Start(dir string, n int, opts ...Option) (*Lab, error) {
	o := options{firstIP: 2}
	for _, opt := range opts {
		opt(&o)
	}
	if n < 1 || o.firstIP < 1 || o.firstIP+n-1 > 254 {
		return nil, fmt.Errorf("sshtest: cannot place %d hosts from 127.0.0.%d", n, o.firstIP)
	}
	if _, err := os.Stat(SSHD); err != nil {
		return nil, ErrNoSSHD
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	l := &Lab{dir: dir, uid: os.Getuid(), gid: os.Getgid(), nofile: o.nofile}
	if err := l.setUser(); err != nil {
		return nil, err
	}
	if err := l.prepareDir(); err != nil {
		return nil, err
	}
	if err := l.writeClientKey(); err != nil {
		return nil, err
	}

	l.hosts = make([]*host, n)
	var g errgroup.Group
	g.SetLimit(4) // key generation is CPU-bound; the machine has few cores
	for i := range n {
		h := &host{
			name: fmt.Sprintf("host-%02d", i+1),
			ip:   fmt.Sprintf("127.0.0.%d", o.firstIP+i),
			dir:  filepath.Join(dir, fmt.Sprintf("h%02d", i+1)),
		}
		l.hosts[i] = h
		g.Go(func() error { return l.prepareHost(h) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	l.knownHosts = filepath.Join(dir, "known_hosts")
	for _, h := range l.hosts {
		if err := l.writeConfig(h, &o); err != nil {
			return nil, err
		}
	}
	// Start servers a few at a time; each start waits until it accepts.
	g = errgroup.Group{}
	g.SetLimit(8)
	for _, h := range l.hosts {
		g.Go(func() error { return l.startWithFreshPort(h, &o) })
	}
	if err := g.Wait(); err != nil {
		l.Close()
		return nil, err
	}
	if o.proxies {
		for _, h := range l.hosts {
			if h.proxy, err = NewProxy(h.ip, h.addr()); err != nil {
				l.Close()
				return nil, err
			}
		}
	}
	// Ports are known only now.
	if err := l.rewriteKnownHosts(); err != nil {
		l.Close()
		return nil, fmt.Errorf("sshtest: %w", err)
	}
	return l, nil
}

func (l *Lab) setUser() error {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return fmt.Errorf("sshtest: current user: %w", err)
		}
		l.user = u.Username
		return nil
	}
	u, err := user.Lookup(RootUser)
	if err != nil {
		return fmt.Errorf("sshtest: running as root needs the user %s (run .ci/setup): %w", RootUser, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// Supplementary groups matter: membership of "tty" is what lets a
	// non-root sshd chown a pty on containers whose devpts lacks gid=5.
	var groups []uint32
	if ids, err := u.GroupIds(); err == nil {
		for _, s := range ids {
			if g, err := strconv.Atoi(s); err == nil {
				groups = append(groups, uint32(g))
			}
		}
	}
	l.user, l.uid, l.gid = u.Username, uid, gid
	l.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: groups}
	return nil
}

// prepareDir creates the lab directory and, as root, hands it to the
// sshd user, after checking that user can reach it at all.
func (l *Lab) prepareDir() error {
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return fmt.Errorf("sshtest: %w", err)
	}
	if err := os.Chmod(l.dir, 0o755); err != nil {
		return fmt.Errorf("sshtest: %w", err)
	}
	if l.cred == nil {
		return nil
	}
	for p := filepath.Dir(l.dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("sshtest: %w", err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("sshtest: lab dir %s is not reachable by user %s: %s has mode %v (use a directory under /tmp)", l.dir, l.user, p, st.Mode().Perm())
		}
		if p == "/" {
			break
		}
	}
	return os.Chown(l.dir, l.uid, l.gid)
}

// chown gives path to the sshd user (no-op when not root).
func (l *Lab) chown(path string) error {
	if l.cred == nil {
		return nil
	}
	return os.Chown(path, l.uid, l.gid)
}

func (l *Lab) writeClientKey() error {
	k, err := newKey("ed25519")
	if err != nil {
		return err
	}
	l.identity = filepath.Join(l.dir, "id_ed25519")
	pub, err := writeKey(l.identity, k)
	if err != nil {
		return fmt.Errorf("sshtest: client key: %w", err)
	}
	ak := filepath.Join(l.dir, "authorized_keys")
	if err := os.WriteFile(ak, ssh.MarshalAuthorizedKey(pub), 0o644); err != nil {
		return fmt.Errorf("sshtest: %w", err)
	}
	return nil
}

func (l *Lab) prepareHost(h *host) error {
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return fmt.Errorf("sshtest: %s: %w", h.name, err)
	}
	if err := l.chown(h.dir); err != nil {
		return fmt.Errorf("sshtest: %s: %w", h.name, err)
	}
	for _, typ := range keyTypes {
		k, err := newKey(typ)
		if err != nil {
			return fmt.Errorf("sshtest: %s: %w", h.name, err)
		}
		path := filepath.Join(h.dir, "ssh_host_"+typ+"_key")
		pub, err := writeKey(path, k)
		if err != nil {
			return fmt.Errorf("sshtest: %s: %w", h.name, err)
		}
		// sshd refuses host keys readable by others and needs to own
		// them to read them at 0600.
		if err := l.chown(path); err != nil {
			return fmt.Errorf("sshtest: %s: %w", h.name, err)
		}
		h.keys = append(h.keys, pub)
	}
	return nil
}

// freePort asks the kernel for a port free on ip. Another process may
// take it before sshd binds it; startWithFreshPort retries that case.
func freePort(ip string) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// addr is sshd's "ip:port" (port is 0 until a port was picked).
func (h *host) addr() string { return net.JoinHostPort(h.ip, strconv.Itoa(h.port)) }

// dialPort is the port clients are given: the proxy's if there is one.
func (h *host) dialPort() int {
	if h.proxy != nil {
		return h.proxy.Port()
	}
	return h.port
}

// dialAddr is the "ip:port" clients are given.
func (h *host) dialAddr() string { return net.JoinHostPort(h.ip, strconv.Itoa(h.dialPort())) }

func (l *Lab) rewriteKnownHosts() error {
	var b bytes.Buffer
	for _, h := range l.hosts {
		addrs := []string{h.addr()}
		if h.proxy != nil {
			addrs = append(addrs, h.dialAddr())
		}
		for _, k := range h.keys {
			b.WriteString(knownhosts.Line(addrs, k))
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(l.knownHosts, b.Bytes(), 0o644)
}

func sftpServer() string {
	if _, err := os.Stat("/usr/lib/openssh/sftp-server"); err == nil {
		return "/usr/lib/openssh/sftp-server"
	}
	return "internal-sftp"
}

func (l *Lab) writeConfig(h *host, o *options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ListenAddress %s\n", h.addr())
	for _, typ := range keyTypes {
		fmt.Fprintf(&b, "HostKey %s\n", filepath.Join(h.dir, "ssh_host_"+typ+"_key"))
	}
	fmt.Fprintf(&b, "PidFile %s\n", filepath.Join(h.dir, "sshd.pid"))
	fmt.Fprintf(&b, "AuthorizedKeysFile %s\n", filepath.Join(l.dir, "authorized_keys"))
	// A non-root sshd cannot use PAM, and the lab's files are not laid out
	// the way StrictModes wants (they live in a temp dir, not ~/.ssh).
	b.WriteString("UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n")
	b.WriteString("PubkeyAuthentication yes\nPrintMotd no\nAcceptEnv LANG LC_* BENCHRIG_*\n")
	fmt.Fprintf(&b, "Subsystem sftp %s\n", sftpServer())
	b.WriteString("LogLevel VERBOSE\n")
	if o.maxSessions > 0 {
		fmt.Fprintf(&b, "MaxSessions %d\n", o.maxSessions)
	}
	if o.maxStartups != "" {
		fmt.Fprintf(&b, "MaxStartups %s\n", o.maxStartups)
	}
	for _, line := range o.extra {
		b.WriteString(line + "\n")
	}
	return os.WriteFile(filepath.Join(h.dir, "sshd_config"), []byte(b.String()), 0o644)
}

// startWithFreshPort picks a port, writes the config and starts sshd,
// retrying with another port if one was taken in between.
func (l *Lab) startWithFreshPort(h *host, o *options) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if h.port, err = freePort(h.ip); err != nil {
			return fmt.Errorf("sshtest: %s: free port: %w", h.name, err)
		}
		if err = l.writeConfig(h, o); err != nil {
			return err
		}
		if err = l.start(h); err == nil {
			return nil
		}
		if !strings.Contains(err.Error(), "Address already in use") {
			return err
		}
	}
	return err
}

// start runs sshd in the foreground (-D) in its own process group, so the
// lab owns and reaps it, and waits until it accepts connections.
func (l *Lab) start(h *host) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	logPath := filepath.Join(h.dir, "sshd.log")
	cmd := exec.Command(SSHD, "-D", "-f", filepath.Join(h.dir, "sshd_config"), "-E", logPath)
	if l.nofile > 0 {
		// The shell lowers its own limit (no privilege needed) and
		// becomes sshd, whose logins inherit it.
		cmd = exec.Command("/bin/sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, strconv.FormatUint(l.nofile, 10)}, cmd.Args...)...)
	}
	cmd.Dir = h.dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LANG=C"}
	// Pdeathsig: a lab whose owner dies (a killed `make demo`, a test
	// binary that timed out) must not leave listening servers behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: l.cred, Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// A per-connection child forked while Kill walks /proc escapes the
	// SIGKILL and holds this stderr pipe until it notices its parent is
	// gone; Wait (and so h.done) must not wait for it once sshd itself
	// is dead (TestConnectAndDial's "sshd did not exit" under load).
	cmd.WaitDelay = time.Second
	before := fileSize(logPath)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("sshtest: %s: start sshd: %w", h.name, err)
	}

	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	h.cmd, h.done = cmd, done

	addr := h.addr()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-done:
			return fmt.Errorf("sshtest: %s: sshd exited at start: %s%s", h.name, strings.TrimSpace(stderr.String()), logTail(logPath, before))
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return fmt.Errorf("sshtest: %s: sshd not accepting on %s after 10s: %w", h.name, addr, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func logTail(path string, from int64) string {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) <= from {
		return ""
	}
	return ": " + strings.TrimSpace(string(b[from:]))
}

// N is the number of hosts.
func (l *Lab) N() int { return len(l.hosts) }

// Dir is the lab directory.
func (l *Lab) Dir() string { return l.dir }

// User is the login user on every host.
func (l *Lab) User() string { return l.user }

// IdentityPath is the client's private key, accepted by every host.
func (l *Lab) IdentityPath() string { return l.identity }

// KnownHostsPath is a known_hosts file with every key of every host.
func (l *Lab) KnownHostsPath() string { return l.knownHosts }

// Name is host i's name (host-01, ...), i counting from 0.
func (l *Lab) Name(i int) string { return l.hosts[i].name }

// Addr is host i's "ip:port" as clients dial it (its proxy's, with
// WithProxies).
func (l *Lab) Addr(i int) string { return l.hosts[i].dialAddr() }

// Proxy is the fault proxy in front of host i, nil without WithProxies.
func (l *Lab) Proxy(i int) *Proxy { return l.hosts[i].proxy }

// HostDir is a directory owned by the login user, private to host i: the
// fake hosts share one filesystem, so tests put per-host files here.
func (l *Lab) HostDir(i int) string { return l.hosts[i].dir }

// HostKeys are host i's public host keys (ed25519, ecdsa, rsa).
func (l *Lab) HostKeys(i int) []ssh.PublicKey {
	return append([]ssh.PublicKey(nil), l.hosts[i].keys...)
}

// LogPath is host i's sshd log.
func (l *Lab) LogPath(i int) string { return filepath.Join(l.hosts[i].dir, "sshd.log") }

// Targets describes every host for remote.NewSSH. ProxyJump is "none" so
// a developer's ~/.ssh/config cannot route the lab through a bastion.
func (l *Lab) Targets() []remote.Target {
	ts := make([]remote.Target, len(l.hosts))
	for i, h := range l.hosts {
		ts[i] = remote.Target{
			Name:          h.name,
			Host:          h.ip,
			Port:          h.dialPort(),
			User:          l.user,
			IdentityFiles: []string{l.identity},
			ProxyJump:     "none",
		}
	}
	return ts
}

// WriteHostsFile writes "user@ip:port" lines for the given hosts (all if
// none), the format of parallel-ssh's -h file.
func (l *Lab) WriteHostsFile(path string, idx ...int) error {
	if len(idx) == 0 {
		for i := range l.hosts {
			idx = append(idx, i)
		}
	}
	var b strings.Builder
	for _, i := range idx {
		fmt.Fprintf(&b, "%s@%s:%d\n", l.user, l.hosts[i].ip, l.hosts[i].dialPort())
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Kill stops host i like a crashed machine: the listening sshd and every
// process under it (the per-connection sshd children, which run in their
// own sessions, and the commands they started) get SIGKILL, so existing
// connections drop too.
func (l *Lab) Kill(i int) error {
	h := l.hosts[i]
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return nil
	}
	if err := signalTree(h.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("sshtest: kill %s: %w", h.name, err)
	}
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("sshtest: kill %s: sshd did not exit", h.name)
	}
	h.cmd = nil
	return nil
}

// Restart starts host i's sshd again: a new process with the same
// address, port and host keys, as after a reboot or a restart of sshd
// that took its sessions along. A running sshd is killed first (Kill);
// a test that wants the host away for a while calls Kill, waits, then
// Restart. Detached jobs (setsid, re-parented away from sshd) survive.
func (l *Lab) Restart(i int) error {
	if err := l.Kill(i); err != nil {
		return err
	}
	return l.start(l.hosts[i])
}

// Pause stops (SIGSTOP) host i's sshd and all its children: connections
// stay open but nothing answers, like a hung machine or a black-holed
// link. Resume undoes it.
func (l *Lab) Pause(i int) error {
	h := l.hosts[i]
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return fmt.Errorf("sshtest: %s is not running", h.name)
	}
	pids := append([]int{h.cmd.Process.Pid}, descendants(h.cmd.Process.Pid)...)
	h.paused = append(h.paused, pids...)
	return signalPids(pids, syscall.SIGSTOP)
}

// Resume continues a paused host: every process Pause stopped, including
// one no longer under sshd (a job that was detaching as the host froze,
// since re-parented to init), and whatever runs under sshd now.
func (l *Lab) Resume(i int) error {
	h := l.hosts[i]
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return fmt.Errorf("sshtest: %s is not running", h.name)
	}
	pids := append(h.paused, h.cmd.Process.Pid)
	h.paused = nil
	return signalPids(append(pids, descendants(h.cmd.Process.Pid)...), syscall.SIGCONT)
}

// Close kills every host. The lab directory is left for inspection.
func (l *Lab) Close() error {
	var errs []error
	for i, h := range l.hosts {
		if h == nil {
			continue
		}
		if h.proxy != nil {
			errs = append(errs, h.proxy.Close())
		}
		h.mu.Lock()
		running := h.cmd != nil
		h.mu.Unlock()
		if running {
			// SIGKILL also ends a paused (SIGSTOPped) tree.
			errs = append(errs, l.Kill(i))
		}
	}
	return errors.Join(errs...)
}

// signalTree signals pid and all its descendants, found through /proc.
// Children are collected before signalling so a SIGKILLed parent cannot
// hide them by being reaped (they would be re-parented to init).
func signalTree(pid int, sig syscall.Signal) error {
	return signalPids(append([]int{pid}, descendants(pid)...), sig)
}

// signalPids signals every pid; one already gone is no error.
func signalPids(pids []int, sig syscall.Signal) error {
	var first error
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && !errors.Is(err, syscall.ESRCH) && first == nil {
			first = err
		}
	}
	return first
}

func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, ok := parentOf(pid)
		if ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads the ppid from /proc/PID/stat; the command name in
// parentheses may itself contain spaces and parentheses, so parse after
// the last ')'.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b[i+1:]))
	sc.Split(bufio.ScanWords)
	var fields []string
	for sc.Scan() && len(fields) < 2 {
		fields = append(fields, sc.Text())
	}
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}
