package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/remote/sshtest"
)

func TestRemoteCommands(t *testing.T) {
	l := sshtest.StartT(t, 3)
	base := []string{"--known-hosts", l.KnownHostsPath(), "--ssh-config", "none", "-i", l.IdentityPath()}
	for _, tg := range l.Targets() {
		base = append(base, "--target", fmt.Sprintf("%s=%s@%s:%d", tg.Name, tg.User, tg.Host, tg.Port))
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	cli := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		full := append([]string{"benchrig", args[0]}, append(append([]string(nil), base...), args[1:]...)...)
		code := run(context.Background(), full, &out, &errb)
		return code, out.String(), errb.String()
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  []string
	}{
		{"exec ok", []string{"exec", "--", "echo", "hello world"}, 0, []string{"host-01 | hello world\n", "host-03 | hello world\n"}, []string{"3 hosts: 3 ok"}},
		{"exec failing", []string{"exec", "--", "sh", "-c", "echo bad >&2; exit 4"}, exitRemote, []string{"host-02 | bad\n"}, []string{"failed", "status 4"}},
		{"exec timeout", []string{"exec", "--timeout", "300ms", "--", "sleep", "5"}, exitRemote, nil, []string{"timed out"}},
		{"usage", []string{"exec"}, exitUsage, nil, []string{"give the command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cli(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}

	local := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(local, []byte("payload\n"), 0o600)
	dst := filepath.Join(l.HostDir(0), "f.txt") // all hosts share the filesystem: one path, written by each in turn
	if code, out, errOut := cli("put", "--hosts", "host-01", "--mode", "0640", local, dst); code != 0 {
		t.Fatalf("put: exit %d\n%s\n%s", code, out, errOut)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o640 {
		t.Fatalf("put result: %v %v", st, err)
	}
	var in bytes.Buffer
	in.WriteString("echo from script $((6*7))\n")
	var sout, serr bytes.Buffer
	app := newApp(&sout, &serr)
	app.Reader = &in
	if err := app.RunContext(context.Background(), append([]string{"benchrig", "exec", "--stdin", "--hosts", "host-02"}, append(append([]string(nil), base...), "--", "sh", "-s")...)); err != nil || !strings.Contains(sout.String(), "host-02 | from script 42\n") {
		t.Errorf("--stdin: %v\n%s%s", err, sout.String(), serr.String())
	}
	if code, out, _ := cli("exec", "--hosts", "host-03", "--hosts", "host-01", "--", "echo", "picked"); code != 0 ||
		!strings.Contains(out, "host-03 | picked") || !strings.Contains(out, "host-01 | picked") || strings.Contains(out, "host-02") {
		t.Errorf("--hosts selection: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	if code, out, errOut := cli("get", dst, dir); code != 0 {
		t.Fatalf("get: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, h := range []string{"host-01", "host-02", "host-03"} {
		if b, err := os.ReadFile(filepath.Join(dir, h, "f.txt")); err != nil || string(b) != "payload\n" {
			t.Errorf("%s: %q %v", h, b, err)
		}
	}
	// A host name is a local directory name: "../../x" must not lead the
	// download out of the directory named on the command line.
	outer := t.TempDir()
	inner := filepath.Join(outer, "a", "b")
	tg := l.Targets()[0]
	evil := fmt.Sprintf("../../x=%s@%s:%d", tg.User, tg.Host, tg.Port)
	if code, out, errOut := cli("get", "--target", evil, "--hosts", "../../x", dst, inner); code != exitUsage || !strings.Contains(errOut, "../../x") {
		t.Errorf("get with host ../../x: exit %d, want %d\n%s\n%s", code, exitUsage, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(outer, "x")); !os.IsNotExist(err) {
		t.Errorf("get with host ../../x wrote outside its directory: %v", err)
	}
	if code, _, errOut := cli("get", "--hosts", "host-01", "/", inner); code != exitUsage {
		t.Errorf("get of /: exit %d, want %d\n%s", code, exitUsage, errOut)
	}

	if err := l.Kill(1); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli("exec", "--", "true")
	if code != exitTransport || !strings.Contains(errOut, "host-02") || !strings.Contains(errOut, "2 ok") {
		t.Errorf("one host down: exit %d, want %d\n%s", code, exitTransport, errOut)
	}
}
