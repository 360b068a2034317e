package plan

import (
	"strings"
	"testing"
)

// TestRemotePlaces: host paths, download URLs and driver flags are
// accepted in their place and refused, at their line, outside it.
func TestRemotePlaces(t *testing.T) {
	base := `version: 1
name: t
flavor: postgres
nodes:
  - name: db1
    dir: DIR
    store: STORE
workload:
  - name: w1
binaries:
  database: {host: /usr/lib/postgresql/15/bin}
  driver: {url: "URL", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
tpcc:
  warehouses: 1
  extra_flags: [FLAG]
stages: [preflight]
`
	ok := map[string]string{"DIR": "benchrig", "STORE": "/mnt/data1/pgdata", "URL": "https://example.com/benchrig", "FLAG": "--mix=newOrder=1"}
	for _, c := range []struct {
		field, val string
		want       string // "" accepted; else a piece of the one problem
	}{
		{"DIR", "benchrig/db1", ""},
		{"DIR", "/srv/benchrig", ""},
		{"DIR", "benchrig/../..", "nodes[0].dir: \"benchrig/../..\" climbs with '..'"},
		{"DIR", "..", "climbs with '..'"},
		{"DIR", ".", "the login's home directory itself"},
		{"DIR", "./", "the login's home directory itself"},
		{"DIR", "/", "the root directory"},
		{"DIR", "/var", "a top-level directory"},
		{"DIR", "/home/benchrig", "a home directory"},
		{"DIR", "/root", "a home directory"},
		{"DIR", "/Users/x", "a home directory"},
		{"DIR", "a//b", `write "a/b"`},
		{"DIR", "a/", `write "a"`},
		{"STORE", "benchrig/pgdata", ""},
		{"STORE", "/mnt/../etc", "nodes[0].store: \"/mnt/../etc\" climbs"},
		{"STORE", "benchrig", "holds the work directory"},
		{"STORE", "/home", "a top-level directory"},
		{"URL", "https://example.com/c[1-3]/{a,b}", ""},
		{"URL", "https://example.com/a%20b", ""},
		{"URL", "https://example.com/a b", "percent-encode"},
		{"URL", "https://example.com/é", "percent-encode"},
		{"URL", "https://user:secret@example.com/x", "user name or password"},
		{"URL", "https://example.com/" + strings.Repeat("x", 3000), "longer than"},
		{"FLAG", "--tolerate-errors", ""},
		{"FLAG", "--result=/home/benchrig/.bashrc", "--result is not for extra_flags: it names an output file"},
		{"FLAG", "-ticks=/tmp/x", "--ticks is not for extra_flags"},
		{"FLAG", "--histograms", "--histograms is not for extra_flags"},
		{"FLAG", "--duration=1s", "set from tpcc.duration"},
		{"FLAG", "postgres://evil/db", "is not a flag"},
		{"FLAG", "--", "is not a flag"},
	} {
		vals := map[string]string{}
		for k, v := range ok {
			vals[k] = v
		}
		vals[c.field] = c.val
		text := base
		for k, v := range vals {
			text = strings.Replace(text, k, `"`+strings.ReplaceAll(v, `"`, `\"`)+`"`, 1)
		}
		_, err := ParsePlan("p.yaml", []byte(strings.ReplaceAll(text, `""`, `"`)))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %q: %v", c.field, c.val, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: want %q, got %v", c.field, c.val, c.want, err)
		case c.want != "" && !strings.Contains(err.Error(), "p.yaml:"):
			t.Errorf("%s %q: no file:line:col: %v", c.field, c.val, err)
		}
	}
}

// TestStoreMount: a node's store_mount is an absolute path that holds its
// store; anything else is refused at its line.
func TestStoreMount(t *testing.T) {
	for _, c := range []struct {
		store, mount, want string // want: "" accepted, else a piece of the problem
	}{
		{"/mnt/data1/cockroach", "/mnt/data1", ""},
		{"/mnt/data1", "/mnt/data1", ""},
		{"/mnt/data1/cockroach", "/mnt/data2", `nodes[0].store_mount: "/mnt/data2" must be an absolute path that holds the store ("/mnt/data1/cockroach")`},
		{"cockroach-data", "mnt", "must be an absolute path"},
		{"", "/mnt/data1", "holds the store (\"\")"},
	} {
		text := "version: 1\nname: t\nflavor: cockroach\nnodes:\n  - name: db1\n"
		if c.store != "" {
			text += "    store: " + c.store + "\n"
		}
		text += "    store_mount: " + c.mount + "\nworkload:\n  - name: w1\nbinaries:\n" +
			"  database: {url: \"https://example.invalid/cockroach-v20.1.17.linux-amd64\", sha256: 0000000000000000000000000000000000000000000000000000000000000000}\n" +
			"tpcc:\n  warehouses: 1\nstages: [preflight]\n"
		at := "p.yaml:6:" // store_mount's line
		if c.store != "" {
			at = "p.yaml:7:"
		}
		_, err := ParsePlan("p.yaml", []byte(text))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("store %q on %q: %v", c.store, c.mount, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), at) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("store %q on %q: want %q at %s, got %v", c.store, c.mount, c.want, at, err)
		}
	}
}
