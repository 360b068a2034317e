package buildinfo_test

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/benchrig/benchrig/internal/buildinfo"
)

func TestWrite(t *testing.T) {
	info := &debug.BuildInfo{
		Main:     debug.Module{Path: "github.com/benchrig/benchrig", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "GOARCH", Value: "amd64"}},
		Deps:     []*debug.Module{{Path: "a", Version: "v1"}, {Path: "b", Version: "v2", Replace: &debug.Module{Path: "c", Version: "v3"}}},
	}
	for _, tc := range []struct {
		info      *debug.BuildInfo
		want, not []string
	}{
		{info, []string{"benchrig v9\n", "module   github.com/benchrig/benchrig v1.2.3\n", "build    vcs.revision=abc\n", "dep      a v1\n", "dep      b v2 => c v3\n"}, []string{"GOARCH"}},
		{nil, []string{"benchrig v9\n", "no build information"}, []string{"module   "}},
	} {
		var b bytes.Buffer
		if err := buildinfo.Write(&b, "v9", tc.info); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("lacks %q:\n%s", w, b.String())
			}
		}
		for _, n := range tc.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("has %q:\n%s", n, b.String())
			}
		}
	}
}
