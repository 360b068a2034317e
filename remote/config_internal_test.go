package remote

import (
	"os"
	"path/filepath"
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
