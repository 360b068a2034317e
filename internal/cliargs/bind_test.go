package cliargs_test

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
)

type inner struct {
	Path  string        `flag:"path" usage:"a path"`
	Every time.Duration `flag:"every" usage:"a period"`
}

type args struct {
	Name    string   `flag:"name,n" usage:"a name"`
	Count   int      `flag:"count" usage:"how many" default:"computed"`
	Big     int64    `flag:"big"`
	Seed    uint64   `flag:"seed"`
	Rate    float64  `flag:"rate"`
	On      bool     `flag:"on"`
	Hosts   []string `flag:"hosts"`
	NameSet bool     `isset:"name"`
	In      inner
	Skipped string // no tag: no flag
}

// parse runs a one-command app over argv and returns what the flags wrote.
func parse(t *testing.T, argv ...string) (args, error) {
	t.Helper()
	a := args{Count: 3, On: true, Hosts: []string{"all"}, In: inner{Every: time.Second}}
	flags, apply := cliargs.Flags(&a)
	app := &cli.App{Name: "x", Writer: io.Discard, ErrWriter: io.Discard, Flags: flags, Action: func(c *cli.Context) error {
		apply(c)
		return nil
	}}
	err := app.RunContext(context.Background(), append([]string{"x"}, argv...))
	return a, err
}

func TestFlagsWriteIntoFields(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want args
	}{
		{nil, args{Count: 3, On: true, Hosts: []string{"all"}, In: inner{Every: time.Second}}},
		{[]string{"-n", "a", "--count", "7", "--big", "-9", "--seed", "18446744073709551615", "--rate", "2.5", "--on=false",
			"--hosts", "db1", "--hosts", "db2", "--path", "/x", "--every", "2m"},
			args{Name: "a", Count: 7, Big: -9, Seed: 1<<64 - 1, Rate: 2.5, Hosts: []string{"db1", "db2"}, NameSet: true, In: inner{Path: "/x", Every: 2 * time.Minute}}},
		{[]string{"--name", ""}, args{Count: 3, On: true, Hosts: []string{"all"}, NameSet: true, In: inner{Every: time.Second}}},
	} {
		got, err := parse(t, tc.argv...)
		if err != nil {
			t.Fatalf("%q: %v", tc.argv, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.argv, got, tc.want)
		}
	}
}

func TestFlagsRefuseBadValuesAndUnknown(t *testing.T) {
	for _, argv := range [][]string{{"--count", "x"}, {"--seed", "-1"}, {"--every", "5"}, {"--skipped", "a"}, {"--NameSet"}} {
		if _, err := parse(t, argv...); err == nil {
			t.Errorf("%q parsed", argv)
		}
	}
}

func TestFlagsHelp(t *testing.T) {
	a := args{Count: 3}
	flags, _ := cliargs.Flags(&a)
	var names []string
	for _, f := range flags {
		names = append(names, f.String())
	}
	help := strings.Join(names, "\n")
	for _, want := range []string{"--name value, -n value\ta name", "--count value\thow many (default: computed)", "--path value\ta path"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
}

func TestFlagsPanicsOnProgrammingErrors(t *testing.T) {
	for _, cfg := range []any{args{}, new(int), &struct {
		C chan int `flag:"c"`
	}{}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: no panic", cfg)
				}
			}()
			cliargs.Flags(cfg)
		}()
	}
}

func TestFlagsArgTagNamesTheValue(t *testing.T) {
	var a struct {
		Out string `flag:"out" usage:"write to FILE, not stdout" arg:"FILE"`
	}
	flags, _ := cliargs.Flags(&a)
	if got := flags[0].String(); !strings.HasPrefix(got, "--out FILE\twrite to FILE, not stdout") {
		t.Errorf("help %q", got)
	}
}
