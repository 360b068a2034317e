package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLocalFiles: every file on this machine a plan names is refused at
// validation, at its place in the plan, when it is not what its field
// means: a FIFO (which would hang), a device (which never ends), a
// directory, a file past its bound, a binary that is not executable or
// not the digest the plan gives, an ssh_config that would run a command,
// a known_hosts file that is not one. Each case must return quickly.
func TestLocalFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	bin := write("cockroach", "#!/bin/sh\necho binary\n", 0o755)
	sum := sha256.Sum256([]byte("#!/bin/sh\necho binary\n"))
	binSum := hex.EncodeToString(sum[:])
	plain := write("shadow", "root:x:0:0::/root:/bin/sh\n", 0o600)
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1<<30 + 1) // sparse
	f.Chmod(0o755)
	f.Close()
	goodCfg := write("ssh_config", "Host n*\n  User bench\n  IdentitiesOnly yes\n", 0o600)
	evilCfg := write("evil_config", "Host *\n  User bench\nMatch exec \"touch "+filepath.Join(dir, "marker")+"\"\n", 0o600)
	proxyCfg := write("proxy_config", "Host *\n  ProxyCommand sh -c 'id > /tmp/x'\n", 0o600)
	kh := write("known_hosts", "# empty\n", 0o600)

	const base = `version: 1
name: t
flavor: cockroach
ssh:
  config: %CONFIG%
  known_hosts: %KH%
  identity_file: %ID%
nodes:
  - name: n[1-3]
binaries:
  database:
    path: %BIN%
    sha256: "%SUM%"
tpcc:
  warehouses: 10
stages: [install, start, init]
`
	for _, tc := range []struct {
		name string
		vars map[string]string
		want string // "" = valid; else a regexp over one problem line
	}{
		{name: "all fine", vars: map[string]string{"%BIN%": bin, "%SUM%": binSum}},
		{name: "missing ssh files are left to the connection", vars: map[string]string{"%CONFIG%": filepath.Join(dir, "nope"), "%KH%": filepath.Join(dir, "nope2"), "%ID%": filepath.Join(dir, "nope3")}},
		{name: "binary is a fifo", vars: map[string]string{"%BIN%": fifo}, want: `:12:11: binaries.database.path: .*fifo: not a regular file \(a named pipe\)`},
		{name: "binary is /dev/zero", vars: map[string]string{"%BIN%": zeroLink}, want: `:12:11: binaries.database.path: .*: not a regular file \(a character device\)`},
		{name: "binary is a directory", vars: map[string]string{"%BIN%": dir}, want: `:12:11: binaries.database.path: .*: not a regular file \(a directory\)`},
		{name: "binary is not executable", vars: map[string]string{"%BIN%": plain}, want: `:12:11: binaries.database.path: .*shadow is not executable \(mode 0600\)`},
		{name: "binary over 1 GiB", vars: map[string]string{"%BIN%": huge}, want: `:12:11: binaries.database.path: .*huge: 1073741825 bytes, larger than 1 GiB allowed`},
		{name: "binary sha256 differs", vars: map[string]string{"%BIN%": bin, "%SUM%": strings.Repeat("0", 64)}, want: `:13:13: binaries.database.sha256: .*cockroach has sha256 ` + binSum + `, not the plan's 0+`},
		{name: "ssh config match exec", vars: map[string]string{"%CONFIG%": evilCfg}, want: `:5:11: ssh.config: .*evil_config:3:1: Match exec touch .*: refused`},
		{name: "ssh config proxycommand", vars: map[string]string{"%CONFIG%": proxyCfg}, want: `:5:11: ssh.config: .*proxy_config:2:3: ProxyCommand: refused`},
		{name: "ssh config fifo", vars: map[string]string{"%CONFIG%": fifo}, want: `:5:11: ssh.config: .*not a regular file \(a named pipe\)`},
		{name: "ssh config /dev/zero", vars: map[string]string{"%CONFIG%": "/dev/zero"}, want: `:5:11: ssh.config: .*not a regular file \(a character device\)`},
		{name: "identity fifo", vars: map[string]string{"%ID%": fifo}, want: `:7:18: ssh.identity_file: .*not a regular file \(a named pipe\)`},
		{name: "known_hosts is another file", vars: map[string]string{"%KH%": plain}, want: `:6:16: ssh.known_hosts: known_hosts .*shadow:1:1: not a known_hosts line`},
		{name: "known_hosts fifo", vars: map[string]string{"%KH%": fifo}, want: `:6:16: ssh.known_hosts: .*not a regular file \(a named pipe\)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"%CONFIG%": goodCfg, "%KH%": kh, "%ID%": plain, "%BIN%": bin, "%SUM%": ""}
			for k, v := range tc.vars {
				vars[k] = v
			}
			text := base
			for k, v := range vars {
				text = strings.ReplaceAll(text, k, v)
			}
			if vars["%SUM%"] == "" {
				text = strings.Replace(text, "    sha256: \"\"\n", "", 1)
			}
			start := time.Now()
			_, err := ParsePlan("t.yaml", []byte(text))
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("validation took %s", d)
			}
			var pe *PlanError
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *PlanError", err)
			}
			if !regexp.MustCompile(`t\.yaml` + tc.want).MatchString(err.Error()) {
				t.Errorf("want %s in:\n%v", tc.want, err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Error("Match exec ran")
	}
}
