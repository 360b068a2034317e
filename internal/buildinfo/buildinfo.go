package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Write prints version, the toolchain and platform, the VCS revision when
// the build recorded it, and every module linked in. info is the binary's
// own (debug.ReadBuildInfo), so that what it says is true of this binary,
// not of a go.mod; nil says the binary was built without modules.
func Write(w io.Writer, version string, info *debug.BuildInfo) error {
	fmt.Fprintf(w, "benchrig %s\n", version)
	fmt.Fprintf(w, "go       %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info == nil {
		_, err := fmt.Fprintln(w, "(no build information: not built with module support)")
		return err
	}
	fmt.Fprintf(w, "module   %s %s\n", info.Main.Path, info.Main.Version)
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time", "vcs.modified", "CGO_ENABLED", "-trimpath":
			fmt.Fprintf(w, "build    %s=%s\n", s.Key, s.Value)
		}
	}
	for _, d := range info.Deps {
		v := d.Version
		if d.Replace != nil {
			v += " => " + d.Replace.Path + " " + d.Replace.Version
		}
		_, err := fmt.Fprintf(w, "dep      %s %s\n", d.Path, v)
		if err != nil {
			return err
		}
	}
	return nil
}
