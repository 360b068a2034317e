// Package cliargs holds what benchrig's command line adds to urfave/cli:
// flags declared by the packages' own argument types through struct tags
// and written straight into them (Flags), flags after arguments
// (Reorder), a usage error for every flag that does not parse and for an
// unknown subcommand (UsageErrors), and environment variables for chosen
// flags (BindEnv). The command tree itself, and the exit codes, stay in
// cmd/benchrig; its tests exercise these against the real tree.
package cliargs
