// Package completion generates shell completion scripts from a
// urfave/cli command tree: a static bash function (also run by zsh
// through bashcompinit) whose command path selects the subcommands and
// flags to offer. The tree is the only source, so a new command or flag
// completes without anyone editing a script.
package completion
