package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/completion"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Generated from the command tree. Install, for example:
   benchrig completion bash > /etc/bash_completion.d/benchrig
   benchrig completion zsh > "${fpath[1]}/_benchrig"
   benchrig completion fish > ~/.config/fish/completions/benchrig.fish`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return withExit(exitUsage, errors.New("completion: name a shell: bash, zsh or fish"))
			}
			if !slices.Contains(completion.Shells, c.Args().First()) {
				return withExit(exitUsage, fmt.Errorf("completion: unknown shell %q (bash, zsh or fish)", c.Args().First()))
			}
			return completion.Write(c.App.Writer, c.App, c.Args().First())
		},
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff), generated from the command tree",
		Description: `Install, for example:
   benchrig man > /usr/local/share/man/man1/benchrig.1`,
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
