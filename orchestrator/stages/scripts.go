package stages

import "github.com/benchrig/benchrig/remote"

// scriptNames names the constant shell scripts steps pass to `sh -c`.
// Values never appear in them (they arrive as positional parameters), so
// a listing can show each script once, by name, and then only the
// arguments that vary per host.
var scriptNames = map[string]string{
	installScript:    "install",
	pgStartScript:    "pg-start",
	pgStopScript:     "pg-stop",
	createDB:         "pg-createdb",
	preflightScript:  "preflight",
	ulimitScript:     "ulimit",
	crdbStartScript:  "crdb-start",
	crdbStopScript:   "crdb-stop",
	crdbInitScript:   "crdb-init",
	jobsStopScript:   "jobs-stop",
	crdbSignalScript: "crdb-signal",
	crdbReapScript:   "crdb-reap",
	mkdirOwnedScript: "mkdir-owned",
	wipeScript:       "wipe",
	fetchScript:      "share-fetch",
}

// abbreviated returns c with every known script replaced by a short
// token, and the names of the scripts it replaced.
func abbreviated(c remote.Cmd) (remote.Cmd, []string) {
	var names []string
	args := c.Args
	for i, a := range args {
		name, ok := scriptNames[a]
		if !ok {
			continue
		}
		if names == nil {
			args = append([]string(nil), c.Args...)
		}
		args[i] = "<" + name + ">"
		names = append(names, name)
	}
	c.Args = args
	return c, names
}

// ScriptText returns the text of a named script.
func ScriptText(name string) string {
	for text, n := range scriptNames {
		if n == name {
			return text
		}
	}
	return ""
}
