package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

var (
	_ runner.Executor = (*remote.SSH)(nil)
	_ runner.Executor = (*remote.Local)(nil)
	_ runner.Executor = (*remote.Recorder)(nil)
)

// newSSH is an executor for the lab with test-friendly settings; mod may
// change the config.
func newSSH(t testing.TB, l *sshtest.Lab, mod func(*remote.SSHConfig)) *remote.SSH {
	t.Helper()
	cfg := remote.SSHConfig{
		KnownHostsFiles: []string{l.KnownHostsPath()},
		NoAgent:         true,
		SSHConfigFile:   "none",
		ConnectTimeout:  10 * time.Second,
		KillGrace:       2 * time.Second,
		RetryBackoff:    50 * time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := remote.NewSSH(l.Targets(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSSHRun(t *testing.T) {
	l := sshtest.StartT(t, 2)
	var out syncbuf.Buffer
	s := newSSH(t, l, func(c *remote.SSHConfig) { c.Output = &out })
	ctx := context.Background()
	tests := []struct {
		name       string
		cmd        remote.Cmd
		wantOut    string
		wantErr    string
		wantCode   int
		wantSignal string
	}{
		{name: "echo", cmd: remote.Cmd{Args: []string{"echo", "a b", "$HOME", "'q'"}}, wantOut: "a b $HOME 'q'\n"},
		{name: "env and dir", cmd: remote.Cmd{Args: []string{"sh", "-c", `echo "$X $(pwd)"`}, Env: map[string]string{"X": "x;y"}, Dir: "/tmp"}, wantOut: "x;y /tmp\n"},
		{name: "stdin secret", cmd: remote.Cmd{Args: []string{"cat"}, Stdin: "key=" + remote.Placeholder("k") + "\n", Secrets: map[string]remote.Secret{"k": secret("s3cret")}}, wantOut: "key=s3cret\n"},
		{name: "exit 3", cmd: remote.Cmd{Args: []string{"sh", "-c", "echo oops >&2; exit 3"}}, wantErr: "status 3", wantCode: 3},
		{name: "exit 255 is the command's", cmd: remote.Cmd{Args: []string{"sh", "-c", "exit 255"}}, wantErr: "status 255", wantCode: 255},
		{name: "signal", cmd: remote.Cmd{Args: []string{"sh", "-c", "kill -KILL $$"}}, wantErr: "signal KILL", wantCode: -1, wantSignal: "KILL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Run(ctx, "host-02", tt.cmd)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got := string(res.Stdout); got != tt.wantOut {
					t.Errorf("stdout %q, want %q", got, tt.wantOut)
				}
				return
			}
			var xe *remote.ExitError
			if !errors.As(err, &xe) {
				t.Fatalf("err = %v (%T), want *remote.ExitError", err, err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) || xe.Code != tt.wantCode || res.ExitCode != tt.wantCode || xe.Signal != tt.wantSignal {
				t.Errorf("err = %v (code %d, signal %q, result code %d)", err, xe.Code, xe.Signal, res.ExitCode)
			}
		})
	}
	if got := out.String(); !strings.Contains(got, "host-02 | a b $HOME 'q'\n") || !strings.Contains(got, "host-02 | oops\n") {
		t.Errorf("live output lacks prefixed lines:\n%s", got)
	}
	if strings.Contains(out.String(), "s3cret") && !strings.Contains(out.String(), "key=s3cret") {
		t.Errorf("secret leaked outside the command's own output")
	}
	if _, err := s.Run(ctx, "nope", remote.Cmd{Args: []string{"true"}}); !errors.As(err, new(*remote.UnknownHostError)) {
		t.Errorf("unknown host: err = %v", err)
	}
}

type secret string

func (s secret) Name() string            { return "k" }
func (s secret) Reveal() (string, error) { return string(s), nil }

// TestSSHFanout runs on 10 hosts at once through Each, 12 commands per
// host at once: more than sshd's MaxSessions (10) allows on one
// connection, so the per-connection session cap must queue them.
func TestSSHFanout(t *testing.T) {
	l := sshtest.StartT(t, 10)
	s := newSSH(t, l, nil)
	hosts := s.Hosts()
	outs := remote.Each(context.Background(), hosts, 0, func(ctx context.Context, host string) error {
		var g sync.WaitGroup
		errs := make([]error, 12)
		for i := range errs {
			g.Add(1)
			go func() {
				defer g.Done()
				res, err := s.Run(ctx, host, remote.Cmd{Args: []string{"sh", "-c", "sleep 0.2; echo $1", "sh", host}})
				if err == nil && strings.TrimSpace(string(res.Stdout)) != host {
					err = fmt.Errorf("stdout %q", res.Stdout)
				}
				errs[i] = err
			}()
		}
		g.Wait()
		return errors.Join(errs...)
	})
	for i, o := range outs {
		if o.Host != hosts[i] {
			t.Errorf("outcome %d is for %s, want %s (input order)", i, o.Host, hosts[i])
		}
		if o.Err != nil {
			t.Errorf("%s: %v", o.Host, o.Err)
		}
	}
	// One connection per host carried all 12 commands: sshd logged one
	// login.
	for i := range l.N() {
		b, err := os.ReadFile(l.LogPath(i))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "Accepted publickey"); n != 1 {
			t.Errorf("%s: %d logins, want 1 shared connection", l.Name(i), n)
		}
	}
}

// TestConnectAndDial: a pre-flight connect, and a TCP tunnel through one
// host to another host's sshd (whose banner comes back through it).
func TestConnectAndDial(t *testing.T) {
	l := sshtest.StartT(t, 2)
	s := newSSH(t, l, func(c *remote.SSHConfig) { c.DialRetries = -1 })
	ctx := context.Background()
	for _, h := range s.Hosts() {
		if err := s.Connect(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := s.DialContext(ctx, l.Name(0), "tcp", l.Addr(1))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	banner := make([]byte, 8)
	if _, err := io.ReadFull(conn, banner); err != nil || string(banner) != "SSH-2.0-" {
		t.Errorf("banner %q, %v", banner, err)
	}
	if err := l.Kill(1); err != nil {
		t.Fatal(err)
	}
	fresh := newSSH(t, l, func(c *remote.SSHConfig) { c.DialRetries = -1 })
	if err := fresh.Connect(ctx, l.Name(1)); !errors.As(err, new(*remote.TransportError)) {
		t.Errorf("connect to a dead host: %v", err)
	}
}
