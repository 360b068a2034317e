package cliargs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// UsageErrors makes a flag that does not parse, on the app or any
// command, an error marked by usage; a command that only groups
// subcommands answers an unknown one with such an error too, and shows
// its help without one.
func UsageErrors(app *cli.App, usage func(error) error) {
	onUsage := func(_ *cli.Context, err error, _ bool) error { return usage(err) }
	app.OnUsageError = onUsage
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.OnUsageError == nil {
				c.OnUsageError = onUsage
			}
			if c.Action == nil && len(c.Subcommands) > 0 {
				name := c.Name
				c.Action = func(ctx *cli.Context) error {
					if ctx.NArg() > 0 {
						return usage(fmt.Errorf("unknown command %q of %s (see %s %s --help)", ctx.Args().First(), name, app.Name, name))
					}
					return cli.ShowSubcommandHelp(ctx)
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// EnvName is the variable that sets a flag: prefix BENCHRIG_ and flag
// known-hosts make BENCHRIG_KNOWN_HOSTS.
func EnvName(prefix, flag string) string {
	return prefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// BindEnv gives the named flags of every command (but the skipped ones
// and their subcommands) their environment variable; a flag on the
// command line still wins.
func BindEnv(cmds []*cli.Command, prefix string, names []string, skip ...string) {
	for _, c := range cmds {
		if slices.Contains(skip, c.Name) {
			continue
		}
		for _, f := range c.Flags {
			if !slices.Contains(names, f.Names()[0]) {
				continue
			}
			env := []string{EnvName(prefix, f.Names()[0])}
			switch f := f.(type) {
			case *cli.StringFlag:
				f.EnvVars = env
			case *cli.BoolFlag:
				f.EnvVars = env
			case *cli.StringSliceFlag:
				f.EnvVars = env
			}
		}
		BindEnv(c.Subcommands, prefix, names, skip...)
	}
}
