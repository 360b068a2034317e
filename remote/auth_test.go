package remote_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestAgentAuth logs in with a key held only by a real ssh-agent: no
// identity file is given, and the default ~/.ssh ones are not the lab's.
func TestAgentAuth(t *testing.T) {
	for _, bin := range []string{"ssh-agent", "ssh-add"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed", bin)
		}
	}
	l := sshtest.StartT(t, 1)
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i > 100 {
			t.Fatal("ssh-agent socket did not appear")
		}
		time.Sleep(20 * time.Millisecond)
	}
	add := exec.Command("ssh-add", l.IdentityPath())
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v: %s", err, out)
	}
	t.Setenv("SSH_AUTH_SOCK", sock)
	tg := l.Targets()[0]
	tg.IdentityFiles = nil
	s, err := remote.NewSSH([]remote.Target{tg}, remote.SSHConfig{KnownHostsFiles: []string{l.KnownHostsPath()}, SSHConfigFile: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(context.Background(), tg.Name, remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Fatalf("agent login: %v", err)
	}

	// Without the agent, the same target has no key to offer: said up
	// front, naming the host.
	_, err = remote.NewSSH([]remote.Target{tg}, remote.SSHConfig{KnownHostsFiles: []string{l.KnownHostsPath()}, SSHConfigFile: "none", NoAgent: true})
	if home, _ := os.UserHomeDir(); err == nil {
		if _, statErr := os.Stat(filepath.Join(home, ".ssh", "id_ed25519")); statErr != nil {
			t.Errorf("no agent and no key: NewSSH succeeded")
		}
	} else if !strings.Contains(err.Error(), tg.Name) {
		t.Errorf("no key: %v", err)
	}
}

// TestAcceptNewConcurrent connects to 8 unknown hosts at once under
// accept-new: each host's key is recorded exactly once and a fresh
// strict executor then accepts all of them.
func TestAcceptNewConcurrent(t *testing.T) {
	l := sshtest.StartT(t, 8)
	kh := filepath.Join(t.TempDir(), "sub", "known_hosts")
	s := newSSH(t, l, func(c *remote.SSHConfig) {
		c.KnownHostsFiles = []string{kh}
		c.HostKeyPolicy = remote.HostKeysAcceptNew
		c.CreateKnownHosts = true // a new file, not ~/.ssh/known_hosts
	})
	run := func(s *remote.SSH) error {
		return remote.Failed(remote.Each(context.Background(), s.Hosts(), 0, func(ctx context.Context, h string) error {
			_, err := s.Run(ctx, h, remote.Cmd{Args: []string{"true"}})
			return err
		}))
	}
	if err := run(s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(kh)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 {
		t.Errorf("known_hosts has %d lines, want 8:\n%s", len(lines), b)
	}
	strict := newSSH(t, l, func(c *remote.SSHConfig) { c.KnownHostsFiles = []string{kh} })
	if err := run(strict); err != nil {
		t.Errorf("strict after accept-new: %v", err)
	}
}
