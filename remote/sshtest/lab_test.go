package sshtest_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestLabOpenSSH logs into every lab host with the OpenSSH client, using
// only the files the lab hands out, with strict host key checking: the
// harness must produce a setup a real ssh(1) accepts.
func TestLabOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH client (ssh) not installed")
	}
	l := sshtest.StartT(t, 3)
	for i, tg := range l.Targets() {
		out, err := exec.Command("ssh", "-F", "none", "-i", l.IdentityPath(),
			"-o", "UserKnownHostsFile="+l.KnownHostsPath(), "-o", "StrictHostKeyChecking=yes",
			"-o", "BatchMode=yes", "-p", itoa(tg.Port), tg.User+"@"+tg.Host, "echo", "hi", tg.Name).CombinedOutput()
		if err != nil {
			t.Fatalf("host %d: ssh: %v: %s\nsshd log: %s", i, err, out, l.LogPath(i))
		}
		if got, want := strings.TrimSpace(string(out)), "hi "+tg.Name; got != want {
			t.Errorf("host %d: got %q, want %q", i, got, want)
		}
	}
	if err := l.Kill(1); err != nil {
		t.Fatal(err)
	}
	if err := l.Restart(1); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
