package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/benchrig/benchrig/internal/testneeds"
)

// Server is a running throwaway PostgreSQL. All methods are safe for
// concurrent use.
type Server struct {
	dir     string // data directory root (holds data/, sock/, log)
	port    int
	cmd     *exec.Cmd
	exited  chan struct{} // closed when the postmaster has been reaped
	waitErr error         // valid after exited is closed
	stop    sync.Once

	mu  sync.Mutex
	dbs int // counter for NewDatabase names
}

// Option configures Start.
type Option func(*config)

type config struct {
	settings map[string]string
	user     string
}

// NoSync turns off fsync, synchronous_commit and full_page_writes. Tests use
// it for speed; benchmarks must not, since durability costs are part of
// what a load benchmark measures.
func NoSync() Option {
	return func(c *config) {
		c.settings["fsync"] = "off"
		c.settings["synchronous_commit"] = "off"
		c.settings["full_page_writes"] = "off"
	}
}

// Setting sets a server parameter (postgres -c name=value).
func Setting(name, value string) Option {
	return func(c *config) { c.settings[name] = value }
}

// unprivilegedUser is the account the server runs as when we are root.
func unprivilegedUser() string {
	if u := os.Getenv("BENCHRIG_TEST_USER"); u != "" {
		return u
	}
	return "benchrig"
}

// BinDir returns the directory holding initdb and postgres. It prefers
// $PATH, then the newest /usr/lib/postgresql/<v>/bin (Debian keeps the
// server binaries off $PATH).
func BinDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	cands, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(cands, func(i, j int) bool { return version(cands[i]) > version(cands[j]) })
	for _, c := range cands {
		dir := filepath.Dir(c)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New("pgtest: no initdb/postgres found on $PATH or in /usr/lib/postgresql/*/bin (install postgresql, see .ci/setup)")
}

func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// Available returns nil when Start can run here, else the reason it can't.
func Available() error {
	if _, err := BinDir(); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup(unprivilegedUser()); err != nil {
			return fmt.Errorf("pgtest: running as root needs the unprivileged user %q (run .ci/setup): %w", unprivilegedUser(), err)
		}
	}
	return nil
}

// Require ends t when Start cannot run here (Available): it skips it, or
// fails it under CI (testneeds.Missing).
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		testneeds.Missing(t, err.Error())
	}
}

// Start initialises and starts a server, skipping the test when PostgreSQL
// is not installed (failing it under CI: Require). The server is stopped
// and its files removed by t.Cleanup.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	Require(t)
	cfg := config{settings: map[string]string{}, user: unprivilegedUser()}
	for _, o := range opts {
		o(&cfg)
	}
	s, err := start(cfg)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("pgtest: stop: %v", err)
		}
		os.RemoveAll(s.dir)
	})
	return s
}

func start(cfg config) (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchrig-pgtest-")
	if err != nil {
		return nil, err
	}
	cred, err := credential(cfg.user)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	data := filepath.Join(dir, "data")
	sock := filepath.Join(dir, "sock")
	for _, d := range []string{sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if cred != nil {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("chown %s: %w", d, err)
			}
		}
	}
	// --no-sync: initdb's own fsync of the template databases is pointless
	// for a directory that is deleted after the test.
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb in %s: %w\n%s", data, err, out)
	}
	// A port picked by binding :0 can be taken by someone else before the
	// postmaster binds it; retry a few times on that race.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s, err := launch(bin, dir, data, sock, port, cred, cfg.settings)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func credential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("look up unprivileged user %q: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func launch(bin, dir, data, sock string, port int, cred *syscall.Credential, settings map[string]string) (*Server, error) {
	args := []string{"-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + sock,
		"-c", "max_connections=200",
		"-c", "logging_collector=off",
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-c", k+"="+settings[k])
	}
	logPath := filepath.Join(dir, "postgres.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(filepath.Join(bin, "postgres"), args...)
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	// Pdeathsig SIGQUIT: if the test binary dies without cleanup, the
	// postmaster does an immediate shutdown instead of lingering.
	// Setpgid keeps a terminal's Ctrl+C from reaching it before Stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	s := &Server{dir: dir, port: port, cmd: cmd, exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(30 * time.Second); err != nil {
		s.Stop()
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("postgres on 127.0.0.1:%d: %w\n%s", port, err, tail(log, 2000))
	}
	return s, nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return bytes.TrimSpace(b)
}

func (s *Server) waitReady(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("postmaster exited: %v", s.waitErr)
		default:
		}
		conn, err := pgx.Connect(ctx, s.URL("postgres"))
		if err == nil {
			conn.Close(ctx)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready after %v: %w", timeout, err)
		case <-s.exited:
			return fmt.Errorf("postmaster exited: %v", s.waitErr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Stop shuts the server down (fast shutdown: SIGINT, then SIGQUIT after
// 10 s). It is idempotent; Start's cleanup calls it too.
func (s *Server) Stop() error {
	var err error
	s.stop.Do(func() {
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.exited
				err = errors.New("postmaster did not stop on SIGINT/SIGQUIT, killed")
			}
		}
	})
	return err
}

// Port is the TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Host is the listen address, always 127.0.0.1.
func (s *Server) Host() string { return "127.0.0.1" }

// PID is the postmaster's process id (the parent of every backend).
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Dir is the server's root directory (data/, sock/, postgres.log).
func (s *Server) Dir() string { return s.dir }

// URL is a connection URL for database db as the superuser "postgres".
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDatabase creates database name and returns its URL.
func (s *Server) CreateDatabase(t testing.TB, name string) string {
	t.Helper()
	if err := s.createDatabase(context.Background(), name); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return s.URL(name)
}

// NewDatabase creates a database with a fresh name (db1, db2, ...) and
// returns its URL; for tests sharing one server.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.dbs++
	name := fmt.Sprintf("db%d", s.dbs)
	s.mu.Unlock()
	return s.CreateDatabase(t, name)
}

func (s *Server) createDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect to create database %s: %w", name, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times. It is part of
// the Linux ABI (fixed at 100 regardless of the kernel's HZ).
const clockTicks = 100

// CPUTime returns the CPU time (user+system) consumed so far by the whole
// server: the postmaster, its live children (backends, walwriter,
// checkpointer, ...) and the children it has already reaped (their time is
// in the postmaster's cutime/cstime). Benchmarks take the difference of two
// readings around the measured section.
func (s *Server) CPUTime() (time.Duration, error) {
	pid := s.PID()
	var ticks uint64
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	ticks += f.utime + f.stime + f.cutime + f.cstime
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		cf, err := procStat(child)
		if err != nil || cf.ppid != pid {
			continue // exited meanwhile, or not ours
		}
		ticks += cf.utime + cf.stime
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

type statFields struct {
	ppid                         int
	utime, stime, cutime, cstime uint64
}

// procStat parses /proc/<pid>/stat. The command name (field 2) may contain
// spaces and parentheses, so fields are counted from the last ')'.
func procStat(pid int) (statFields, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFields{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return statFields{}, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// After ')': state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	if len(f) < 15 {
		return statFields{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var sf statFields
	sf.ppid, _ = strconv.Atoi(f[1])
	sf.utime, _ = strconv.ParseUint(f[11], 10, 64)
	sf.stime, _ = strconv.ParseUint(f[12], 10, 64)
	sf.cutime, _ = strconv.ParseUint(f[13], 10, 64)
	sf.cstime, _ = strconv.ParseUint(f[14], 10, 64)
	return sf, nil
}
