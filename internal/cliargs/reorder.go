package cliargs

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Reorder lets flags follow the plan, run directory or other
// arguments (`benchrig run PLAN --dry-run`): urfave/cli v2, like Go's flag
// package, stops parsing flags at the first argument, so the flags of
// every command level are moved before that level's arguments. A global
// flag (--verbose, --quiet) given at a command level that does not define
// it moves to the front. "--" ends flags: what follows it stays as given,
// after "--" (exec's remote command line); so does everything from a token
// after an argument that looks like a flag but is none of this command's
// or the global ones (exec uname -a). A flag that takes a value keeps
// it, whatever it looks like (--start-lead -1s). A shell-completion request
// is left as it is: urfave reads it from the last position.
//
// This is the only place argv is rearranged; the tests name every case.
func Reorder(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == "--generate-bash-completion" {
		return args
	}
	var global, rest []string
	var walk func(flags []cli.Flag, cmds []*cli.Command, toks []string, top bool)
	walk = func(flags []cli.Flag, cmds []*cli.Command, toks []string, top bool) {
		var fl, pos []string
	scan:
		for i := 0; i < len(toks); i++ {
			tok := toks[i]
			switch {
			case tok == "--":
				rest = append(rest, fl...)
				rest = append(rest, pos...)
				rest = append(rest, toks[i:]...)
				return
			case len(tok) > 1 && tok[0] == '-':
				name := strings.TrimLeft(tok, "-")
				name, _, hasValue := strings.Cut(name, "=")
				f, ok := lookupFlag(flags, name)
				if !ok && len(pos) > 0 {
					if _, gok := lookupFlag(app.Flags, name); !gok {
						// Not a flag of this command: an argument of
						// the command line it was given (exec uname
						// -a), and so is the rest.
						pos = append(pos, toks[i:]...)
						break scan
					}
				}
				if !ok && !top {
					if gf, gok := lookupFlag(app.Flags, name); gok {
						global = append(global, tok)
						if !hasValue && takesValue(gf) && i+1 < len(toks) {
							i++
							global = append(global, toks[i])
						}
						continue
					}
				}
				fl = append(fl, tok)
				if ok && !hasValue && takesValue(f) && i+1 < len(toks) {
					i++
					fl = append(fl, toks[i])
				}
			default:
				if len(pos) == 0 {
					if sub := lookupCommand(cmds, tok); sub != nil {
						if top {
							global = append(global, fl...)
						} else {
							rest = append(rest, fl...)
						}
						rest = append(rest, tok)
						walk(sub.Flags, sub.Subcommands, toks[i+1:], false)
						return
					}
				}
				pos = append(pos, tok)
			}
		}
		if top {
			global = append(global, fl...)
		} else {
			rest = append(rest, fl...)
		}
		rest = append(rest, pos...)
	}
	walk(app.Flags, app.Commands, args[1:], true)
	out := append([]string{args[0]}, global...)
	return append(out, rest...)
}

// lookupFlag finds a flag by any of its names; --help/-h, which urfave
// adds to every command when it runs, is every command's.
func lookupFlag(flags []cli.Flag, name string) (cli.Flag, bool) {
	for _, f := range append(flags[:len(flags):len(flags)], cli.HelpFlag) {
		for _, n := range f.Names() {
			if n == name {
				return f, true
			}
		}
	}
	return nil, false
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func lookupCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
