package main

import "github.com/urfave/cli/v2"

// tpccDataCommands: benchrig tpcc init | load | check. (stub, owned by the tpcc data work)
func tpccDataCommands() []*cli.Command { return nil }
