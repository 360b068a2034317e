package remote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultSSHConfigLayers: with no file named, ~/.ssh/config is read
// (the system file after it, where present), and the first value wins.
func TestDefaultSSHConfigLayers(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	cfg := "Host db-*\n\tUser dba\n\tPort 2200\n\tIdentityFile ~/.ssh/db_key\n\nHost *\n\tUser fallback\n\tIdentityFile ~/.ssh/other\n"
	if err := os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadSSHConfig("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.resolve(Target{Name: "db-7", Port: 2222}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.user != "dba" || e.port != 2222 || e.host != "db-7" {
		t.Errorf("resolved %s@%s:%d; want dba@db-7:2222 (explicit port wins, first User wins)", e.user, e.host, e.port)
	}
	want := []string{filepath.Join(home, ".ssh", "db_key"), filepath.Join(home, ".ssh", "other")}
	if len(e.identityFiles) < 2 || e.identityFiles[0] != want[0] || e.identityFiles[1] != want[1] {
		t.Errorf("identity files %v, want %v first", e.identityFiles, want)
	}
	if !e.optional[want[0]] {
		t.Error("ssh_config identity files must be optional (skipped when missing)")
	}
}

// TestSSHConfigParse: the subset benchrig reads, as ssh reads it.
func TestSSHConfigParse(t *testing.T) {
	cfg := `# comment
User everyone-first
Host web-* !web-9 "quoted alias"
  HostName=%h.example.com
  Port = 2201
  IdentityFile ~/.ssh/web  # trailing comment
  IdentityFile "/keys/with space"
Host web-1
  User ignored-because-first-wins
  Port 9
Host *
  Port 22
  IdentityFile /keys/all
  ServerAliveInterval 30
  UserKnownHostsFile /dev/null
`
	r := &cfgReader{strict: true}
	if err := r.parse("cfg", []byte(cfg), nil, 0); err != nil || len(r.problems) > 0 {
		t.Fatalf("parse: %v %v", err, r.problems)
	}
	c := &sshConfig{paths: []string{"cfg"}, files: []*cfgReader{r}}
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		alias, key string
		want       []string
	}{
		{"web-1", "User", []string{"everyone-first", "ignored-because-first-wins"}},
		{"web-1", "Port", []string{"2201", "9", "22"}},
		{"WEB-1", "HostName", []string{"%h.example.com"}},
		{"web-9", "Port", []string{"22"}},
		{"web-9", "HostName", nil},
		{"quoted alias", "Port", []string{"2201", "22"}},
		{"web-2", "IdentityFile", []string{"~/.ssh/web", "/keys/with space", "/keys/all"}},
		{"db", "IdentityFile", []string{"/keys/all"}},
	} {
		got, err := c.getAll(tc.alias, tc.key)
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s %s = %q, %v; want %q", tc.alias, tc.key, got, err, tc.want)
		}
	}
	e, err := c.resolveHost("web-1", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.host != "web-1.example.com" || e.port != 2201 || e.user != "everyone-first" || e.identityFiles[0] != filepath.Join(home, ".ssh/web") {
		t.Errorf("resolved %+v", e)
	}
}

// TestDefaultSSHConfigLenient: the operator's own ~/.ssh/config may hold
// Match blocks (skipped, with a warning), Include other files (followed,
// relative to ~/.ssh) and a ProxyCommand for other hosts; a ProxyCommand
// that applies to a planned host is an error naming its place.
func TestDefaultSSHConfigLenient(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ssh := filepath.Join(home, ".ssh")
	os.MkdirAll(filepath.Join(ssh, "conf.d"), 0o700)
	marker := filepath.Join(home, "marker")
	cfg := "Include conf.d/*.conf\nMatch exec \"touch " + marker + "\"\n  User matched\nHost jump-*\n  ProxyCommand nc %h %p\nHost *\n  User fallback\n"
	os.WriteFile(filepath.Join(ssh, "config"), []byte(cfg), 0o600)
	os.WriteFile(filepath.Join(ssh, "conf.d", "a.conf"), []byte("Host db-*\n  User dba\n"), 0o600)
	c, err := loadSSHConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.warning, filepath.Join(ssh, "config")+":2:1: Match block not evaluated") {
		t.Errorf("warning %q", c.warning)
	}
	if u, err := c.get("db-1", "User"); err != nil || u != "dba" {
		t.Errorf("db-1 User %q, %v: want dba from the included file", u, err)
	}
	if u, err := c.get("web", "User"); err != nil || u != "fallback" {
		t.Errorf("web User %q, %v: want fallback (the Match block is skipped)", u, err)
	}
	if _, err := c.get("jump-1", "User"); err == nil || !strings.Contains(err.Error(), filepath.Join(ssh, "config")+":5:3: ProxyCommand applies to jump-1") {
		t.Errorf("jump-1: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("Match exec ran")
	}
}

// FuzzSSHConfig: any bytes parse without a panic, and what a strict read
// accepts has no refused keyword in it.
func FuzzSSHConfig(f *testing.F) {
	f.Add([]byte("Host a b !c\n  HostName=x\n  Port 22\n"))
	f.Add([]byte("Match exec \"touch /tmp/x\"\nInclude /etc/*\nProxyCommand 'a b' \"c\\\"d\"\n"))
	f.Add([]byte("Host *\n IdentityFile \"unterminated\n#\n=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, strict := range []bool{true, false} {
			r := &cfgReader{strict: strict}
			_ = r.parse("f", data, nil, maxIncludeDepth) // depth: no Include is followed
			if !strict || len(r.problems) > 0 {
				continue
			}
			for _, b := range r.blocks {
				for _, e := range b.entries {
					if refusedKeys[e.key] != "" || !supportedKeys[e.key] && !ignoredKeys[e.key] {
						t.Fatalf("strict read kept %s at %s", e.key, e.at())
					}
				}
				b.matches("host-1")
			}
		}
	})
}

// TestNamedDefaultSSHConfig: a plan naming ~/.ssh/config gets the
// operator's own file read as when none is named; any other file is
// strict.
func TestNamedDefaultSSHConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	cfg := "Match host x\n  User y\nHost *\n  User z\n"
	own := filepath.Join(home, ".ssh", "config")
	other := filepath.Join(home, "other_config")
	for _, p := range []string{own, other} {
		if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := CheckSSHConfigFile(own); err != nil {
		t.Errorf("~/.ssh/config: %v", err)
	}
	if err := CheckSSHConfigFile(filepath.Join(home, ".ssh", ".", "config")); err != nil {
		t.Errorf("~/.ssh/./config: %v", err)
	}
	if err := CheckSSHConfigFile(other); err == nil || !strings.Contains(err.Error(), other+":1:1: Match host x: refused") {
		t.Errorf("other file: %v", err)
	}
	c, err := loadSSHConfig(own)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.warning, "Match block not evaluated") {
		t.Errorf("loadSSHConfig(~/.ssh/config): warning %q", c.warning)
	}
}
