package runner

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestPermanentConnectFailuresFailAtOnce: a refused host key, a new key
// that accept-new may not record (the plan's known_hosts file does not
// exist), and a refused login fail the step at the first connection, over
// real sshd: neither SSH's dial retries nor the runner's reconnect budget
// dial again, since waiting cannot heal them. The test counts the
// connections the host's proxy accepted, not the time taken: it runs
// with a short budget and backoff, under which a retried failure dials
// many times. A black hole (which can heal) is retried, as the control.
func TestPermanentConnectFailuresFailAtOnce(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	dir := t.TempDir()
	addr := l.Addr(0)

	_, otherPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherPub, err := ssh.NewPublicKey(otherPriv.Public())
	if err != nil {
		t.Fatal(err)
	}
	wrongKnownHosts := filepath.Join(dir, "known_hosts.wrong")
	if err := os.WriteFile(wrongKnownHosts, []byte(knownhosts.Line([]string{addr}, otherPub)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A key sshd does not know for the login user.
	block, err := ssh.MarshalPrivateKey(otherPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	strangerKey := filepath.Join(dir, "id_stranger")
	if err := os.WriteFile(strangerKey, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name      string
		cfg       func(*remote.SSHConfig, []remote.Target)
		permanent bool
		want      string
	}{
		{name: "changed host key", want: "HOST KEY CHANGED", permanent: true,
			cfg: func(c *remote.SSHConfig, _ []remote.Target) { c.KnownHostsFiles = []string{wrongKnownHosts} }},
		{name: "missing known_hosts with accept-new", want: "--create-known-hosts", permanent: true,
			cfg: func(c *remote.SSHConfig, _ []remote.Target) {
				c.KnownHostsFiles = []string{filepath.Join(dir, "absent", "known_hosts")}
				c.HostKeyPolicy = remote.HostKeysAcceptNew
			}},
		{name: "unknown host, strict", want: "--accept-new-host-keys", permanent: true,
			cfg: func(c *remote.SSHConfig, _ []remote.Target) {
				c.KnownHostsFiles = []string{filepath.Join(dir, "absent", "known_hosts")}
			}},
		{name: "login refused", want: "unable to authenticate", permanent: true,
			cfg: func(c *remote.SSHConfig, ts []remote.Target) { ts[0].IdentityFiles = []string{strangerKey} }},
		{name: "black hole (control)", want: "unreachable since",
			cfg: func(c *remote.SSHConfig, _ []remote.Target) {
				c.ConnectTimeout = 300 * time.Millisecond
				l.Proxy(0).Blackhole(0)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer l.Proxy(0).Heal()
			targets := l.Targets()
			cfg := remote.SSHConfig{
				KnownHostsFiles: []string{l.KnownHostsPath()},
				NoAgent:         true,
				SSHConfigFile:   "none",
				// Long enough for a loaded machine's sshd to answer
				// (a handshake that times out is rightly retried);
				// the black hole's dials time out sooner.
				ConnectTimeout: 10 * time.Second,
				DialRetries:    3,
				RetryBackoff:   10 * time.Millisecond,
			}
			tc.cfg(&cfg, targets)
			s, err := remote.NewSSH(targets, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := &Runner{Exec: s, ReconnectBudget: 3 * time.Second, ReconnectBackoff: 20 * time.Millisecond, ReconnectBackoffMax: 50 * time.Millisecond}
			st := stages.Stage{Name: "install", Steps: []stages.Step{{Host: l.Name(0), Kind: stages.Exec, What: "check host", Idempotent: true,
				Cmd: remote.Cmd{Args: []string{"true"}}}}}
			before := l.Proxy(0).Accepted()
			err = r.Run(context.Background(), []stages.Stage{st})
			dials := l.Proxy(0).Accepted() - before
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
			var ue *UnreachableError
			if tc.permanent {
				if dials != 1 {
					t.Errorf("dialed %d times, want 1: a permanent failure is not retried", dials)
				}
				if errors.As(err, &ue) || !remote.Permanent(err) {
					t.Errorf("err = %v, want a permanent failure, not an outage", err)
				}
				return
			}
			if dials < 3 || !errors.As(err, &ue) {
				t.Errorf("a black hole was dialed %d times (err %v), want it retried within the budget", dials, err)
			}
		})
	}
}
