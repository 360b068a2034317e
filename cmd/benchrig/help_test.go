package main

import (
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEveryHelpFileIsUsed: each help/*.txt is the description of one
// command of the tree (a file left behind by a renamed command would
// otherwise go unnoticed), and every command that has a long help reads
// it from its file.
func TestEveryHelpFileIsUsed(t *testing.T) {
	used := map[string]int{}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Description != "" {
				used[c.Description]++
			}
			walk(c.Subcommands)
		}
	}
	walk(newApp(io.Discard, io.Discard).Commands)
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no help files: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		if used[help(name)] != 1 {
			t.Errorf("%s is the description of %d commands, want 1", f, used[help(name)])
		}
	}
	if len(used) != len(files) {
		t.Errorf("%d commands have a description, %d help files: a description is written in code", len(used), len(files))
	}
}
