package cliargs

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// Flags declares one flag per field of the struct cfg points to that has a
// `flag:"NAME[,ALIAS...]"` tag, writing straight into that field: the
// packages' own argument types (tpcc/command.RunArgs, crud.Config, ...) say which
// flags fill them, so that a flag is declared once, next to the field and
// the Validate that reads it, not copied into cmd. The flag's help is the
// `usage:"..."` tag; its default is the field's value when Flags is called
// (the package's defaults), or the text of a `default:"..."` tag when the
// zero value stands for something computed later ("init's"); an
// `arg:"WORD"` tag names the word of the usage that stands for the value.
//
// A struct-typed field without a flag tag is walked for more flags. A bool
// field tagged `isset:"NAME"` is no flag: apply sets it to whether flag
// NAME was given on the command line (tpcc run's --db must then match
// every URL's). Slice flags ([]string) and isset fields are filled by
// apply, which the command's Action calls before reading cfg.
//
// A field of a type Flags cannot declare, or cfg not a pointer to a
// struct, is a programming error in benchrig, not bad input: Flags panics
// at start-up, which every test of the command tree would show.
func Flags(cfg any) (flags []cli.Flag, apply func(*cli.Context)) {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("cliargs.Flags: %T is not a pointer to a struct", cfg))
	}
	var later []func(*cli.Context)
	walk(v.Elem(), &flags, &later)
	return flags, func(c *cli.Context) {
		for _, f := range later {
			f(c)
		}
	}
}

var durationType = reflect.TypeOf(time.Duration(0))

func walk(v reflect.Value, flags *[]cli.Flag, later *[]func(*cli.Context)) {
	t := v.Type()
	for i := range t.NumField() {
		sf, fv := t.Field(i), v.Field(i)
		if name, ok := sf.Tag.Lookup("isset"); ok {
			p := fv.Addr().Interface().(*bool)
			*later = append(*later, func(c *cli.Context) { *p = c.IsSet(name) })
			continue
		}
		tag, ok := sf.Tag.Lookup("flag")
		if !ok {
			if sf.Type.Kind() == reflect.Struct && sf.IsExported() && sf.Type != durationType {
				walk(fv, flags, later)
			}
			continue
		}
		names := strings.Split(tag, ",")
		*flags = append(*flags, flagFor(sf, fv, names[0], names[1:], later))
	}
}

// flagFor declares the flag of one tagged field.
func flagFor(sf reflect.StructField, fv reflect.Value, name string, aliases []string, later *[]func(*cli.Context)) cli.Flag {
	usage, text := sf.Tag.Get("usage"), sf.Tag.Get("default")
	if arg := sf.Tag.Get("arg"); arg != "" {
		// urfave/cli takes a back-quoted word of the usage as the value's
		// name in help (--result FILE); a struct tag cannot hold a back
		// quote, so the arg tag names that word.
		usage = strings.Replace(usage, arg, "`"+arg+"`", 1)
	}
	p := fv.Addr().Interface()
	switch p := p.(type) {
	case *string:
		return &cli.StringFlag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *bool:
		return &cli.BoolFlag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *int:
		return &cli.IntFlag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *int64:
		return &cli.Int64Flag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *uint64:
		return &cli.Uint64Flag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *float64:
		return &cli.Float64Flag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *time.Duration:
		return &cli.DurationFlag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text, Value: *p, Destination: p}
	case *[]string:
		f := &cli.StringSliceFlag{Name: name, Aliases: aliases, Usage: usage, DefaultText: text}
		if len(*p) > 0 {
			f.Value = cli.NewStringSlice(*p...)
		}
		*later = append(*later, func(c *cli.Context) {
			if c.IsSet(name) {
				*p = c.StringSlice(name)
			}
		})
		return f
	}
	panic(fmt.Sprintf("cliargs.Flags: field %s (%s) of flag --%s has no flag type", sf.Name, sf.Type, name))
}
