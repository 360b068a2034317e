package main

import (
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/orchestrator/share"
)

// serveFileCommand is the host side of the install stage's distribution
// of this binary (orchestrator/share): a host that has it serves it to
// the others.
func serveFileCommand() *cli.Command {
	a := share.Args{For: 15 * time.Minute}
	return tagged(&cli.Command{Name: "serve-file", ArgsUsage: "FILE", Description: help("serve-file"),
		Usage: "serve FILE's gzip stream over HTTP for a while (runs on a host in the install stage)"}, &a,
		func(c *cli.Context) error {
			if err := nargs(c, 1, "takes the FILE to serve"); err != nil {
				return err
			}
			if a.Listen == "" {
				return usage(errors.New("serve-file: --listen ADDR:PORT is required"))
			}
			s := share.Server{Listen: a.Listen, File: c.Args().First(), Stream: a.Stream, For: a.For, Log: c.App.Writer}
			return s.Run(c.Context)
		})
}
