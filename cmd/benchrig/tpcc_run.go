package main

import "github.com/urfave/cli/v2"

// tpccRunCommands: benchrig tpcc run | merge. (stub, owned by the tpcc run work)
func tpccRunCommands() []*cli.Command { return nil }
