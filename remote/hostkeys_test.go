package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestAcceptNewWritesOnlyKnownHosts: accept-new appends a host key only to
// a file that already is a known_hosts file (empty counts), creates a
// missing one only with CreateKnownHosts (or when it is the user's
// ~/.ssh/known_hosts, as ssh does), and never blocks on or writes to
// anything else a plan may name.
func TestAcceptNewWritesOnlyKnownHosts(t *testing.T) {
	l := sshtest.StartT(t, 1)
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	rc := filepath.Join(dir, "bashrc")
	const rcText = "# a shell rc\nalias ll='ls -l'\n"
	comment := filepath.Join(dir, "commented")
	for p, text := range map[string]string{rc: rcText, comment: "# nothing yet\n\n", filepath.Join(dir, "empty"): ""} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(kh string, create bool) error {
		done := make(chan error, 1)
		go func() {
			s, err := remote.NewSSH(l.Targets(), remote.SSHConfig{
				KnownHostsFiles: []string{kh}, HostKeyPolicy: remote.HostKeysAcceptNew, CreateKnownHosts: create,
				SSHConfigFile: "none", NoAgent: true, DialRetries: -1,
			})
			if err != nil {
				done <- err
				return
			}
			defer s.Close()
			_, err = s.Run(context.Background(), l.Name(0), remote.Cmd{Args: []string{"true"}})
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatalf("known_hosts %s: hangs", kh)
			return nil
		}
	}
	for _, tc := range []struct {
		name, path string
		create     bool
		want       string // "" = accepted and written
	}{
		{name: "empty file", path: filepath.Join(dir, "empty")},
		{name: "comments only", path: comment},
		{name: "default created", path: filepath.Join(home, ".ssh", "known_hosts")},
		{name: "new file with the flag", path: filepath.Join(dir, "new", "known_hosts"), create: true},
		{name: "new file without the flag", path: filepath.Join(dir, "absent"), want: "unless --create-known-hosts"},
		{name: "not a known_hosts file", path: rc, want: rc + ":2:1: not a known_hosts line"},
		{name: "fifo", path: fifo, want: "not a regular file (a named pipe)"},
		{name: "dev null", path: "/dev/null", want: "not a regular file (a character device)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := connect(tc.path, tc.create)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(tc.path)
				if err != nil || remote.CheckKnownHosts(tc.path, b) != nil || !strings.Contains(string(b), "127.0.0.2") {
					t.Fatalf("not a known_hosts file with the key: %q %v", b, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a known_hosts file was created without the flag (%v)", err)
	}
	if b, _ := os.ReadFile(rc); string(b) != rcText {
		t.Errorf("the shell rc was changed: %q", b)
	}
}
