package remote_test

import (
	"path/filepath"
	"testing"

	"github.com/benchrig/benchrig/remote"
)

func TestLocalPathFor(t *testing.T) {
	dir := filepath.Join("out", "d")
	for _, tc := range []struct {
		host, remote, want string
	}{
		{"db1", "/var/log/pg.log", filepath.Join(dir, "db1", "pg.log")},
		{"10.0.0.5", "results.json", filepath.Join(dir, "10.0.0.5", "results.json")},
		{"::1", "/tmp/a..b", filepath.Join(dir, "::1", "a..b")},
		{"../../x", "/etc/passwd", ""},
		{"..", "f", ""},
		{"a/b", "f", ""},
		{`a\b`, "f", ""},
		{"", "f", ""},
		{".", "f", ""},
		{"db1", "/", ""},
		{"db1", "..", ""},
		{"db1", "/tmp/..", ""},
		{"db1", "", ""},
	} {
		got, err := remote.LocalPathFor(dir, tc.host, tc.remote)
		if tc.want == "" {
			if err == nil {
				t.Errorf("LocalPathFor(%q, %q, %q) = %q, want an error", dir, tc.host, tc.remote, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("LocalPathFor(%q, %q, %q) = %q, %v; want %q", dir, tc.host, tc.remote, got, err, tc.want)
		}
	}
}
