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

	"github.com/benchrig/benchrig/internal/testneeds"
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
	t.Run("refused ssh_config", func(t *testing.T) {
		_, err := remote.NewSSH([]remote.Target{{Name: "a"}}, remote.SSHConfig{SSHConfigFile: bad, KnownHostsFiles: []string{kh}, NoAgent: true})
		if err == nil || !strings.Contains(err.Error(), bad+":1:1: Match exec true: refused") {
			t.Errorf("err = %v, want one naming %s:1:1", err, bad)
		}
	})
}

// TestSSHConfigMatchExecNeverRuns: a named ssh_config whose Match exec
// would create a file is refused at file:line:col, by NewSSH and by
// CheckSSHConfigFile (plan validation), and the file never appears. Then
// the real `ssh -G` reads the same config and creates it: what benchrig
// did before, and what OpenSSH would do with a hostile plan's config.
func TestSSHConfigMatchExecNeverRuns(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	cfgPath := filepath.Join(dir, "config")
	cfg := fmt.Sprintf("Host db\n\tUser dba\n\nMatch exec \"touch %s\"\n\tUser x\n", marker)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	want := cfgPath + ":4:1: Match exec touch " + marker + ": refused"
	err := remote.CheckSSHConfigFile(cfgPath)
	var ce *remote.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckSSHConfigFile: %v, want %q", err, want)
	}
	_, err = remote.NewSSH([]remote.Target{{Name: "db"}}, remote.SSHConfig{
		SSHConfigFile: cfgPath, KnownHostsFiles: []string{filepath.Join(dir, "kh")}, NoAgent: true,
	})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewSSH: %v, want %q", err, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("Match exec ran: the marker exists")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		testneeds.Missing(t, "OpenSSH client not installed: cannot show what ssh -G would do (run .ci/setup)")
	}
	// Only to show the payload is real: OpenSSH runs it.
	if out, err := exec.Command("ssh", "-G", "-F", cfgPath, "db").CombinedOutput(); err != nil {
		t.Fatalf("ssh -G: %v: %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("ssh -G did not run Match exec (%v): the test's payload proves nothing", err)
	}
}

// TestSSHConfigRefused: every directive that runs a command or loads code
// is refused at its place in a named file, all in one error.
func TestSSHConfigRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config")
	cfg := "Host *\n" +
		"  ProxyCommand nc %h %p\n" + // 2
		"  LocalCommand id\n" + // 3
		"  KnownHostsCommand /bin/cat\n" + // 4
		"  PKCS11Provider /tmp/evil.so\n" + // 5
		"  Include /etc/passwd\n" + // 6
		"  Frobnicate yes\n" + // 7
		"  RemoteCommand id\n" + // 8
		"  User \"unterminated\n" + // 9
		"Match all\n" + // 10
		"  ServerAliveInterval 30\n" // ignored
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	err := remote.CheckSSHConfigFile(p)
	var ce *remote.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err %v is not a *ConfigError", err)
	}
	want := []string{
		":2:3: ProxyCommand: refused", ":3:3: LocalCommand: refused", ":4:3: KnownHostsCommand: refused",
		":5:3: PKCS11Provider: refused", ":6:3: Include: refused", ":7:3: Frobnicate: unknown",
		":8:3: RemoteCommand: refused", ":9:3: User: unterminated", ":10:1: Match all: refused",
	}
	if len(ce.Problems) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(ce.Problems), len(want), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), p+w) {
			t.Errorf("no %q in %v", w, err)
		}
	}
}
