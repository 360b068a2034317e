package sshtest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/testneeds"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestLabOpenSSH logs into every lab host with the OpenSSH client, using
// only the files the lab hands out, with strict host key checking: the
// harness must produce a setup a real ssh(1) accepts.
func TestLabOpenSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		testneeds.Missing(t, "OpenSSH client (ssh) not installed (run .ci/setup)")
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

// TestResumeContinuesWhatPauseStopped: a process stopped with its host
// that leaves sshd's tree while stopped (its parent dies: re-parented to
// init, as a detaching job is) is continued by Resume all the same, as a
// frozen machine that wakes up continues everything.
func TestResumeContinuesWhatPauseStopped(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		testneeds.Missing(t, "OpenSSH client (ssh) not installed (run .ci/setup)")
	}
	l := sshtest.StartT(t, 1)
	tg := l.Targets()[0]
	pids := filepath.Join(l.HostDir(0), "pids")
	client := exec.Command("ssh", "-F", "none", "-i", l.IdentityPath(),
		"-o", "UserKnownHostsFile="+l.KnownHostsPath(), "-o", "BatchMode=yes", "-p", itoa(tg.Port), tg.User+"@"+tg.Host,
		"sh -c 'sleep 300 & echo $! $$ >"+pids+".tmp && mv "+pids+".tmp "+pids+"; wait'")
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Process.Kill(); _ = client.Wait() })
	var sleepPid, shPid int
	for deadline := time.Now().Add(10 * time.Second); ; {
		if b, err := os.ReadFile(pids); err == nil {
			f := strings.Fields(string(b))
			sleepPid, _ = strconv.Atoi(f[0])
			shPid, _ = strconv.Atoi(f[1])
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not start its sleep")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(sleepPid, syscall.SIGKILL) })
	state := func(pid int) (st byte, ppid int) {
		b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		ppid, _ = strconv.Atoi(f[1])
		return f[0][0], ppid
	}
	if err := l.Pause(0); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; { // signals arrive asynchronously
		st, _ := state(sleepPid)
		if st == 'T' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session's sleep is in state %c after Pause, want T (stopped)", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Its parent dies while the host is frozen: the sleep leaves sshd's tree.
	if err := syscall.Kill(shPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, ppid := state(sleepPid); ppid != shPid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sleep was not re-parented")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := l.Resume(0); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		st, _ := state(sleepPid)
		if st != 'T' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Resume left stopped a process Pause stopped")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
