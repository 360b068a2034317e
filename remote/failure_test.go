package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestKilledHostIsTransportErrorOnlyThere kills one host's sshd (listener
// and per-connection processes) while a command runs everywhere: that
// host alone reports a TransportError, the others finish normally.
func TestKilledHostIsTransportErrorOnlyThere(t *testing.T) {
	l := sshtest.StartT(t, 4)
	s := newSSH(t, l, func(c *remote.SSHConfig) { c.DialRetries = -1 })
	ctx := context.Background()
	cmd := remote.Cmd{Args: []string{"sh", "-c", "echo started; sleep 2; echo done"}}
	go func() {
		time.Sleep(700 * time.Millisecond)
		if err := l.Kill(2); err != nil {
			t.Error(err)
		}
	}()
	outs := remote.Each(ctx, s.Hosts(), 0, func(ctx context.Context, host string) error {
		_, err := s.Run(ctx, host, cmd)
		return err
	})
	for i, o := range outs {
		var te *remote.TransportError
		if i == 2 {
			if !errors.As(o.Err, &te) || te.Host != l.Name(2) {
				t.Errorf("%s: err = %v (%T), want a TransportError for that host", o.Host, o.Err, o.Err)
			}
			if o.Status() != "transport" {
				t.Errorf("%s: status %q", o.Host, o.Status())
			}
			continue
		}
		if o.Err != nil {
			t.Errorf("%s: %v", o.Host, o.Err)
		}
	}
	// The dead connection is not reused: after a restart the host works.
	if err := l.Restart(2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, l.Name(2), remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Errorf("after restart: %v", err)
	}
}

// TestKeepaliveDetectsHungPeer freezes a host (SIGSTOP: the TCP
// connection stays up, nothing answers); keepalives must fail the running
// command instead of letting it hang.
func TestKeepaliveDetectsHungPeer(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, func(c *remote.SSHConfig) {
		c.KeepaliveInterval = 200 * time.Millisecond
		c.KeepaliveCountMax = 3
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Connected before the host hangs, so what is tested is the
	// keepalive, not the handshake deadline.
	if err := s.Connect(ctx, l.Name(0)); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		if err := l.Pause(0); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { l.Resume(0) })
	_, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"sleep", "30"}})
	var te *remote.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "keepalive") {
		t.Fatalf("err = %v, want a TransportError naming the keepalives", err)
	}
	if ctx.Err() != nil {
		t.Fatal("hung until the test's own deadline")
	}
}

func TestCommandTimeout(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	marker := filepath.Join(l.HostDir(0), "timeout-survivor")
	start := time.Now()
	// If TERM did not reach the command's process group, the sleep's
	// follow-up would create the marker.
	res, err := s.Run(context.Background(), l.Name(0), remote.Cmd{
		Args: []string{"sh", "-c", `echo before; sleep 8; touch "$1"`, "sh", marker},
		// 2s, not less: on a loaded CI machine the session itself can take
		// most of a second to start, and the timeout counts from the call.
		Timeout: 2 * time.Second,
	})
	var to *remote.TimeoutError
	if !errors.As(err, &to) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v (%T), want *remote.TimeoutError", err, err)
	}
	// Generous bounds: the machine may be loaded (CI runs packages in
	// parallel); the command itself would take 5s.
	if d := time.Since(start); d > 7*time.Second {
		t.Errorf("took %v; the command was not stopped at its timeout", d)
	}
	if string(res.Stdout) != "before\n" {
		t.Errorf("stdout %q", res.Stdout)
	}
	time.Sleep(time.Until(start.Add(9 * time.Second)))
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command kept running after its timeout")
	}
}

func TestCancelStopsRemoteCommand(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	pidFile := filepath.Join(l.HostDir(0), "cancel.pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once the command runs (its pid file exists).
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
				break
			}
		}
		cancel()
	}()
	_, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"sh", "-c", `echo $$ > "$1.tmp" && mv "$1.tmp" "$1"; exec sleep 30`, "sh", pidFile}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	if _, err := os.Stat("/proc/" + pid); err == nil {
		t.Errorf("remote process %s still alive after cancel", pid)
	}
}

// knownHostsWith writes a known_hosts file: for each host index, the
// keys of keysOf[i] under host i's address.
func knownHostsWith(t *testing.T, l *sshtest.Lab, keysOf map[int]int, only string) string {
	t.Helper()
	var b strings.Builder
	for h, k := range keysOf {
		for _, key := range l.HostKeys(k) {
			if only != "" && key.Type() != only {
				continue
			}
			b.WriteString(knownhosts.Line([]string{l.Addr(h)}, key) + "\n")
		}
	}
	p := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHostKeys(t *testing.T) {
	l := sshtest.StartT(t, 2)
	ctx := context.Background()
	run := func(kh string, policy remote.HostKeyPolicy) error {
		s := newSSH(t, l, func(c *remote.SSHConfig) {
			c.KnownHostsFiles = []string{kh}
			c.HostKeyPolicy = policy
		})
		_, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"true"}})
		return err
	}
	t.Run("each key type alone is enough", func(t *testing.T) {
		// x/crypto alone fails on an ed25519-only known_hosts (what
		// ssh accept-new writes): the algorithms must follow the file.
		for _, typ := range []string{ssh.KeyAlgoED25519, ssh.KeyAlgoECDSA256, ssh.KeyAlgoRSA} {
			if err := run(knownHostsWith(t, l, map[int]int{0: 0}, typ), remote.HostKeysStrict); err != nil {
				t.Errorf("%s only: %v", typ, err)
			}
		}
	})
	t.Run("mismatch refused under every checking policy", func(t *testing.T) {
		kh := knownHostsWith(t, l, map[int]int{0: 1}, ssh.KeyAlgoED25519)
		for _, p := range []remote.HostKeyPolicy{remote.HostKeysStrict, remote.HostKeysAcceptNew} {
			err := run(kh, p)
			var hk *remote.HostKeyError
			if !errors.As(err, &hk) || !hk.Changed {
				t.Fatalf("%v: err = %v, want a changed-key HostKeyError", p, err)
			}
			got, want := ssh.FingerprintSHA256(l.HostKeys(0)[0]), ssh.FingerprintSHA256(l.HostKeys(1)[0])
			msg := err.Error()
			ip, port, _ := strings.Cut(l.Addr(0), ":")
			if !strings.Contains(msg, "["+ip+"]:"+port) || !strings.Contains(msg, got) || !strings.Contains(msg, want) || !strings.Contains(msg, l.Name(0)) {
				t.Errorf("%v: message must name the host and both fingerprints (%s, %s): %s", p, got, want, msg)
			}
			var te *remote.TransportError
			if !errors.As(err, &te) {
				t.Errorf("not a TransportError: %T", err)
			}
		}
	})
	t.Run("unknown refused by default, accepted with accept-new", func(t *testing.T) {
		kh := knownHostsWith(t, l, map[int]int{1: 1}, "")
		err := run(kh, remote.HostKeysStrict)
		var hk *remote.HostKeyError
		if !errors.As(err, &hk) || hk.Changed || !strings.Contains(err.Error(), "unknown") {
			t.Fatalf("strict: err = %v, want an unknown-key HostKeyError", err)
		}
		if err := run(kh, remote.HostKeysAcceptNew); err != nil {
			t.Fatalf("accept-new: %v", err)
		}
		b, _ := os.ReadFile(kh)
		if !strings.Contains(string(b), "["+l.Addr(0)[:strings.LastIndex(l.Addr(0), ":")]+"]") {
			t.Fatalf("accept-new did not record the key:\n%s", b)
		}
		// Now known: strict accepts it, in a fresh executor.
		if err := run(kh, remote.HostKeysStrict); err != nil {
			t.Errorf("strict after accept-new: %v", err)
		}
	})
	t.Run("missing known_hosts is empty, unreadable is an error", func(t *testing.T) {
		err := run(filepath.Join(t.TempDir(), "absent"), remote.HostKeysStrict)
		if !errors.As(err, new(*remote.HostKeyError)) {
			t.Errorf("absent file: err = %v", err)
		}
		bad := filepath.Join(t.TempDir(), "bad")
		os.WriteFile(bad, []byte("127.0.0.2 ssh-ed25519 !!!notbase64\n"), 0o600)
		_, err = remote.NewSSH(l.Targets(), remote.SSHConfig{KnownHostsFiles: []string{bad}, SSHConfigFile: "none", NoAgent: true})
		if err == nil {
			t.Error("a corrupt known_hosts was accepted")
		}
	})
}

// TestDialLimiterUnderMaxStartups connects to one default-configured
// sshd (MaxStartups 10:30:100) from 40 executors at once: the limiter and
// retries must get every one of them through.
func TestDialLimiterUnderMaxStartups(t *testing.T) {
	l := sshtest.StartT(t, 1)
	const n = 40
	targets := make([]remote.Target, n)
	for i := range targets {
		targets[i] = l.Targets()[0]
		targets[i].Name = "c" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	s, err := remote.NewSSH(targets, remote.SSHConfig{
		KnownHostsFiles: []string{l.KnownHostsPath()}, SSHConfigFile: "none", NoAgent: true,
		RetryBackoff: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	outs := remote.Each(context.Background(), s.Hosts(), n, func(ctx context.Context, host string) error {
		_, err := s.Run(ctx, host, remote.Cmd{Args: []string{"true"}})
		return err
	})
	if err := remote.Failed(outs); err != nil {
		t.Fatal(err)
	}
}

// TestTimeoutEscalatesToKill: a command that ignores SIGTERM is killed
// after the grace period (2s in newSSH), not waited for. The timeout is 2s
// so that the shell has written its pid before it fires even on a loaded
// machine (CI failed once at 300ms: the pid file did not exist yet).
func TestTimeoutEscalatesToKill(t *testing.T) {
	l := sshtest.StartT(t, 1)
	s := newSSH(t, l, nil)
	pidFile := filepath.Join(l.HostDir(0), "stubborn.pid")
	start := time.Now()
	_, err := s.Run(context.Background(), l.Name(0), remote.Cmd{
		Args:    []string{"sh", "-c", `trap "" TERM; echo $$ >"$1"; exec sleep 30`, "sh", pidFile},
		Timeout: 2 * time.Second,
	})
	if !errors.As(err, new(*remote.TimeoutError)) {
		t.Fatalf("err = %v, want *remote.TimeoutError", err)
	}
	// The command alone would take 30s; timeout plus grace is 4s.
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %v: SIGKILL did not follow the grace period", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// The kill is delivered before Run returns, but reaping can lag on a
	// loaded machine: allow it 5s, far short of the sleep's 30s.
	proc := "/proc/" + strings.TrimSpace(string(b))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(proc); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the TERM-ignoring process %s is still alive", b)
			break
		}
	}
}

// TestHandshakeDeadline: a paused sshd still completes TCP connects (the
// kernel accepts into the backlog) but never sends its banner; the dial
// must give up at ConnectTimeout instead of hanging.
func TestHandshakeDeadline(t *testing.T) {
	l := sshtest.StartT(t, 1)
	if err := l.Pause(0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Resume(0) })
	s := newSSH(t, l, func(c *remote.SSHConfig) {
		c.ConnectTimeout = 500 * time.Millisecond
		c.DialRetries = -1
	})
	start := time.Now()
	_, err := s.Run(context.Background(), l.Name(0), remote.Cmd{Args: []string{"true"}})
	var te *remote.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "no SSH handshake within") {
		t.Fatalf("err = %v, want a handshake-timeout TransportError", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
