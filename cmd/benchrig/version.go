package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "this build's version, Go version, platform and module versions",
		Action: func(c *cli.Context) error {
			info, _ := debug.ReadBuildInfo()
			return writeVersion(c.App.Writer, info)
		},
	}
}

// writeVersion prints what a bug report needs: benchrig's version, the
// toolchain and platform, the VCS revision when the build recorded it, and
// every module linked in (from the binary's own build information, so it
// is true of this binary, not of a go.mod).
func writeVersion(w io.Writer, info *debug.BuildInfo) error {
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
		fmt.Fprintf(w, "dep      %s %s\n", d.Path, v)
	}
	return nil
}
