package plan

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSecretShape: only a value shaped like a CockroachDB licence key
// leaves this machine, and no refusal shows the value.
func TestSecretShape(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A real key's shape: prefix, unpadded base64 of a protobuf.
	good := "crl-0-EJL04ukFGAIiDUNvY2tyb2FjaCBMYWJz"
	for _, tc := range []struct {
		name, env, path, want string // want: the value, or a part of the error
		ok                    bool
	}{
		{name: "env key", env: good, want: good, ok: true},
		{name: "env key with newline", env: good + "\n", want: good, ok: true},
		{name: "file key", path: file("lic", good+"\n"), want: good, ok: true},
		{name: "aws secret", env: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", want: "not a CockroachDB licence key"},
		{name: "prefix only", env: "crl-0-", want: "not a CockroachDB licence key"},
		{name: "padded base64", env: "crl-0-YQ==", want: "not a CockroachDB licence key"},
		{name: "bad base64 length", env: "crl-0-abcde", want: "not a CockroachDB licence key"},
		{name: "space inside", env: "crl-0-abcd efgh", want: "not a CockroachDB licence key"},
		{name: "oversized", env: "crl-0-" + strings.Repeat("A", 8192), want: "not a CockroachDB licence key"},
		{name: "shadow file", path: file("shadow", "root:$6$saltsalt$hash:19000:0:99999:7:::\n"), want: "not a CockroachDB licence key"},
		{name: "private key file", path: file("key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----\n"), want: "not a CockroachDB licence key"},
		{name: "fifo", path: fifo, want: "not a regular file (a named pipe)"},
		{name: "dev zero", path: "/dev/zero", want: "not a regular file (a character device)"},
		{name: "big file", path: file("big", good+strings.Repeat(" ", 70<<10)), want: "larger than 64 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := &SecretRef{File: tc.path}
			if tc.path == "" {
				ref = &SecretRef{Env: "BENCHRIG_TEST_LICENSE"}
				t.Setenv("BENCHRIG_TEST_LICENSE", tc.env)
			}
			v, err := ref.Read()
			if tc.ok {
				if err != nil || v != tc.want {
					t.Fatalf("Read = %q, %v; want %q", v, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read = %q, %v; want an error with %q", v, err, tc.want)
			}
			secret := tc.env
			if tc.path != "" && tc.path != fifo && tc.path != "/dev/zero" {
				b, _ := os.ReadFile(tc.path)
				secret = string(b)
			}
			for _, line := range strings.Fields(secret) {
				if len(line) > 4 && strings.Contains(err.Error(), line) && line != "crl-0-" {
					t.Errorf("error shows the value (%q): %v", line, err)
				}
			}
		})
	}
}
