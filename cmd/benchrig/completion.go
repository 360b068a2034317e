package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/buildinfo"
	"github.com/benchrig/benchrig/internal/completion"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:        "completion",
		Usage:       "print a shell completion script: bash, zsh or fish",
		ArgsUsage:   "bash|zsh|fish",
		Description: help("completion"),
		Action: func(c *cli.Context) error {
			if err := nargs(c, 1, "name a shell: bash, zsh or fish"); err != nil {
				return err
			}
			if !slices.Contains(completion.Shells, c.Args().First()) {
				return usage(fmt.Errorf("completion: unknown shell %q (bash, zsh or fish)", c.Args().First()))
			}
			return completion.Write(c.App.Writer, c.App, c.Args().First())
		},
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:        "man",
		Usage:       "print the manual page (roff), generated from the command tree",
		Description: help("man"),
		Action: func(c *cli.Context) error {
			s, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = io.WriteString(c.App.Writer, s)
			return err
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{Name: "version", Usage: "this build's version, Go version, platform and module versions",
		Action: func(c *cli.Context) error {
			info, _ := debug.ReadBuildInfo()
			return buildinfo.Write(c.App.Writer, version, info)
		},
	}
}
