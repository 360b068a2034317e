package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestSSHConfigAndProxyJump resolves a target through an ssh_config
// alias (HostName, Port, User, IdentityFile, ProxyJump) and reaches it
// through the lab's first host as a bastion; with the bastion down it
// fails, which proves the jump was used.
func TestSSHConfigAndProxyJump(t *testing.T) {
	l := sshtest.StartT(t, 2)
	host := func(i int) (ip, port string) {
		a := l.Addr(i)
		j := strings.LastIndex(a, ":")
		return a[:j], a[j+1:]
	}
	bip, bport := host(0)
	tip, tport := host(1)
	cfgPath := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf(`Host bastion
	HostName %s
	Port %s
	User %s
	IdentityFile %s

Host db-*
	ProxyJump bastion

Host db-1
	HostName %s
	Port %s
	User %s
	IdentityFile %s
`, bip, bport, l.User(), l.IdentityPath(), tip, tport, l.User(), l.IdentityPath())
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	newExec := func() *remote.SSH {
		s, err := remote.NewSSH([]remote.Target{{Name: "db", Host: "db-1"}}, remote.SSHConfig{
			KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: cfgPath, DialRetries: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	res, err := newExec().Run(context.Background(), "db", remote.Cmd{Args: []string{"sh", "-c", `echo "$SSH_CONNECTION"`}})
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(res.Stdout)); len(f) != 4 || f[2] != tip || f[3] != tport {
		t.Errorf("SSH_CONNECTION %q: not the target host", res.Stdout)
	}
	// The same through Target fields alone: the target's key must be
	// offered to the bastion too.
	direct := l.Targets()[1]
	direct.ProxyJump = l.User() + "@" + l.Addr(0)
	s2, err := remote.NewSSH([]remote.Target{direct}, remote.SSHConfig{
		KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: "none", DialRetries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.Run(context.Background(), direct.Name, remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Fatalf("Target.ProxyJump: %v", err)
	}

	if err := l.Kill(0); err != nil {
		t.Fatal(err)
	}
	_, err = newExec().Run(context.Background(), "db", remote.Cmd{Args: []string{"true"}})
	var te *remote.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "jump") {
		t.Errorf("bastion down: err = %v, want a TransportError about the jump host", err)
	}
}

func TestSSHConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("Match exec \"true\"\n\tUser x\n"), 0o600)
	unreadable := filepath.Join(dir, "missing")
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte("not a key"), 0o600)
	kh := filepath.Join(dir, "known_hosts")
	tests := []struct {
		name string
		cfg  remote.SSHConfig
		tgt  remote.Target
		want string
	}{
		{"explicit ssh_config missing", remote.SSHConfig{SSHConfigFile: unreadable}, remote.Target{Name: "a"}, unreadable},
		{"identity that does not parse", remote.SSHConfig{SSHConfigFile: "none"}, remote.Target{Name: "a", IdentityFiles: []string{key}}, key},
		{"identity missing", remote.SSHConfig{SSHConfigFile: "none"}, remote.Target{Name: "a", IdentityFiles: []string{key + ".nope"}}, key + ".nope"},
		{"bad ProxyJump", remote.SSHConfig{SSHConfigFile: "none"}, remote.Target{Name: "a", ProxyJump: "u@h:notaport"}, "ProxyJump"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.KnownHostsFiles = []string{kh}
			tt.cfg.NoAgent = true
			_, err := remote.NewSSH([]remote.Target{tt.tgt}, tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %q", err, tt.want)
			}
		})
	}
	t.Run("unparsable ssh_config without OpenSSH to resolve it", func(t *testing.T) {
		t.Setenv("PATH", "")
		_, err := remote.NewSSH([]remote.Target{{Name: "a"}}, remote.SSHConfig{SSHConfigFile: bad, KnownHostsFiles: []string{kh}, NoAgent: true})
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("err = %v, want one naming %s", err, bad)
		}
	})
}

// TestSSHConfigViaSSHG: a config the Go parser rejects (Match exec) is
// resolved by OpenSSH itself (ssh -G), with a warning saying so.
func TestSSHConfigViaSSHG(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH client not installed")
	}
	l := sshtest.StartT(t, 1)
	ip, port, _ := strings.Cut(l.Addr(0), ":")
	cfgPath := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf("Match exec \"true\"\n\tServerAliveInterval 30\n\nHost lab\n\tHostName %s\n\tPort %s\n\tUser %s\n\tIdentityFile %s\n",
		ip, port, l.User(), l.IdentityPath())
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := remote.NewSSH([]remote.Target{{Name: "n1", Host: "lab"}}, remote.SSHConfig{
		KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: cfgPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "ssh -G") || !strings.Contains(w, cfgPath) {
		t.Errorf("warnings %q: want one about ssh -G", w)
	}
	if _, err := s.Run(context.Background(), "n1", remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Fatal(err)
	}
}
