package main

import "github.com/urfave/cli/v2"

// execCommand: benchrig exec --plan PLAN --hosts ... -- CMD ARGS... (stub, owned by the remote work)
func execCommand() *cli.Command { return &cli.Command{Name: "exec", Usage: "run a command on plan hosts"} }

// putCommand: benchrig put (stub)
func putCommand() *cli.Command { return &cli.Command{Name: "put", Usage: "upload a file to plan hosts"} }

// getCommand: benchrig get (stub)
func getCommand() *cli.Command { return &cli.Command{Name: "get", Usage: "download a file from plan hosts"} }
