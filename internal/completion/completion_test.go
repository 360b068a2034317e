package completion

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestTable(t *testing.T) {
	app := &cli.App{
		Name:  "x",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}}},
		Commands: []*cli.Command{
			{Name: "plan", Subcommands: []*cli.Command{{Name: "show", Flags: []cli.Flag{&cli.StringFlag{Name: "o"}}}}},
			{Name: "secret", Hidden: true},
		},
	}
	got := table(app)
	for _, tc := range []struct {
		path        string
		subs, flags []string
	}{
		{"", []string{"plan"}, []string{"--verbose", "-v", "--help"}},
		{" plan", []string{"show"}, []string{"--help"}},
		{" plan show", nil, []string{"-o", "--help"}},
	} {
		e, ok := got[tc.path]
		if !ok || !slices.Equal(e[0], tc.subs) || !slices.Equal(e[1], tc.flags) {
			t.Errorf("%q: %q, want subs %q flags %q", tc.path, e, tc.subs, tc.flags)
		}
	}
	if _, ok := got[" secret"]; ok {
		t.Error("a hidden command completes")
	}
	var b strings.Builder
	if err := Zsh(&b, app); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.HasPrefix(s, "#compdef x\n") || !strings.Contains(s, "\t' plan show') subs='' flags='-o --help' ;;\n") {
		t.Errorf("zsh script:\n%s", s)
	}
}
