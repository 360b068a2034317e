package stages_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/stages"
)

// withWorkloadDriver turns the 100k plan into a driver: workload plan,
// which runs the cluster's own binary as `cockroach workload`.
func withWorkloadDriver(s string) string {
	return strings.Replace(s, "tpcc:\n", "tpcc:\n  driver: workload\n", 1)
}

// withWorkloadBinary adds a separate workload binary (binaries.workload)
// to a driver: workload plan: a pinned build, never a moving LATEST.
func withWorkloadBinary(s string) string {
	return strings.Replace(withWorkloadDriver(s), "binaries:\n", "binaries:\n  workload:\n    url: https://example.invalid/workload-v20.1.17\n"+
		"    sha256: 1111111111111111111111111111111111111111111111111111111111111111\n", 1)
}

// recipeCommands are the seed recipe's ./workload command lines (the 100k
// recipe; testdata holds those lines verbatim, and, where the seed itself
// is present, they are checked to be its lines), continuation lines joined,
// double quotes dropped, the placeholder node address replaced by the
// plan's first node: the merge is benchrig's (tpcc merge reads
// workload's ndjson), so its line is left out.
func recipeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/recipe-100k-workload.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := parseRecipe(string(data))
	if seed, err := os.ReadFile("/work/shared/seeds/000_7828ea30732704eb.txt"); err == nil {
		if from := parseRecipe(string(seed)); strings.Join(from, "\n") != strings.Join(out, "\n") {
			t.Fatalf("testdata/recipe-100k-workload.txt is not the seed's lines:\n%s", strings.Join(from, "\n"))
		}
	}
	return out
}

func parseRecipe(text string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if cur == nil {
			if !strings.HasPrefix(line, "$ ") || !strings.Contains(line, "./workload") || strings.Contains(line, "tpcc-merge-results") {
				continue
			}
			line = strings.TrimPrefix(line, "$ ")
		}
		more := strings.HasSuffix(line, "\\")
		cur = append(cur, strings.TrimSpace(strings.TrimSuffix(line, "\\")))
		if !more {
			cmd := strings.Join(cur, " ")
			cmd = strings.ReplaceAll(cmd, `"`, "")
			cmd = strings.ReplaceAll(cmd, "<address of any CockroachDB node>", "10.0.1.11")
			out = append(out, cmd)
			cur = nil
		}
	}
	return out
}

// asRecipeLine renders a compiled step as the recipe's shell line.
func asRecipeLine(t *testing.T, s stages.Step) string {
	args := s.Cmd.Args
	if len(args) > 3 && args[0] == "sh" && args[1] == "-c" {
		switch stages.ScriptNames[args[2]] {
		case "ulimit":
			return "ulimit -n " + args[4] + " && " + strings.Join(args[5:], " ")
		case "workload-run":
			if args[5] != "addrs" || s.Cmd.Dir != "benchrig" {
				t.Errorf("%s: addrs file %s", s.Host, args[5])
			}
			// args[6] is the file that keeps workload's output (the
			// measured run's), "" for none: not part of the recipe.
			return "ulimit -n " + args[4] + " && " + strings.Join(args[7:], " ") + " $(cat addrs)"
		}
	}
	return strings.Join(args, " ")
}

// TestWorkloadDriverMatchesRecipe: with driver: workload the import,
// partition, allocate and run stages issue the seed recipe's own command
// lines, flag for flag and in order, ulimit -n 200500 included: by
// default as `./cockroach workload ...` from the cluster's own archive
// (installed on every workload host, so the generator is the nodes'),
// with binaries.workload as `./workload ...` from that binary.
func TestWorkloadDriverMatchesRecipe(t *testing.T) {
	for _, tc := range []struct {
		name, head, installed string
		edit                  func(string) string
	}{
		{"cluster binary", "./cockroach workload ",
			"cockroach-v20.1.17.linux-amd64.tgz 0000000000000000000000000000000000000000000000000000000000000000 benchrig/cockroach cockroach-v20.1.17.linux-amd64/cockroach", withWorkloadDriver},
		{"separate binary", "./workload ",
			"workload-v20.1.17 1111111111111111111111111111111111111111111111111111111111111111 benchrig/workload", withWorkloadBinary},
	} {
		t.Run(tc.name, func(t *testing.T) { checkWorkloadDriver(t, tc.edit, tc.head, tc.installed) })
	}
}

func checkWorkloadDriver(t *testing.T, edit func(string) string, head, installedArgs string) {
	_, compiled := compile100k(t, edit)
	var got []string
	for _, name := range []string{"import", "partition", "allocate", "run"} {
		for _, s := range stepsOf(compiled, name) {
			// The recipe's commands are the jobs the stage waits for;
			// the host samplers beside the run are detached.
			if s.Kind == stages.Job && s.JobMode == stages.JobWait {
				line := asRecipeLine(t, s)
				if !strings.Contains(line, head) {
					t.Errorf("%s: %s runs something else than %q", s.Host, line, head)
				}
				got = append(got, strings.Replace(line, head, "./workload ", 1))
			}
		}
	}
	want := recipeCommands(t)
	if len(want) != 12 {
		t.Fatalf("the recipe has %d workload lines, want 12 (import, partition, 5 allocate, 5 run)", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("%d workload commands, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	// The partitioning run (command 1) names every node's URL where the
	// recipe names the first: the recipe's 200,000 connections to one
	// ip:port exceed any workload host's local port range
	// (partitionURLsNote).
	first := "postgres://root@10.0.1.11:26257?sslmode=disable"
	var all []string
	for i := 11; i <= 91; i++ {
		all = append(all, fmt.Sprintf("postgres://root@10.0.1.%d:26257?sslmode=disable", i))
	}
	if !strings.HasSuffix(want[1], " "+first) {
		t.Fatalf("the recipe's partitioning line does not end in %s: %s", first, want[1])
	}
	want[1] = strings.TrimSuffix(want[1], first) + strings.Join(all, " ")
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("command %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	// The install stage uploads workload with its digest and writes the
	// addrs file: the 81 nodes in order.
	var addrs []string
	installed := 0
	for _, s := range stepsOf(compiled, "install") {
		if strings.Contains(strings.Join(s.Cmd.Args, " "), installedArgs) && strings.HasPrefix(s.Host, "workload") {
			installed++
		}
		if s.What == "write the addrs file" && s.Host == "workload1" {
			addrs = s.Cmd.Args[5:]
		}
	}
	if installed != 5 {
		t.Errorf("workload installed on %d hosts, want 5", installed)
	}
	if len(addrs) != 81 || addrs[0] != "postgres://root@10.0.1.11:26257?sslmode=disable" || addrs[80] != "postgres://root@10.0.1.91:26257?sslmode=disable" {
		t.Errorf("addrs file: %d URLs, %q", len(addrs), addrs)
	}
}

// TestWorkloadRunScript runs the script through sh with a stand-in
// workload: the --start-at the runner puts first is waited for, the
// limit applied, the addrs file's URLs become the last arguments as
// words (a URL with a glob character stays itself).
func TestWorkloadRunScript(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "workload")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nulimit -n\nprintf '<%s>\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	addrs := filepath.Join(dir, "addrs")
	if err := os.WriteFile(addrs, []byte("postgres://a:1?x=*\npostgres://b:2 postgres://c:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var script string
	for text, name := range stages.ScriptNames {
		if name == "workload-run" {
			script = text
		}
	}
	at := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	start := time.Now()
	out, err := exec.Command("sh", "-c", script, "sh", "--start-at="+at, "512", addrs, "", fake, "run", "tpcc", "--histograms", "w 1.ndjson").CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("started after %s, before --start-at", d)
	}
	want := "512\n<run>\n<tpcc>\n<--histograms>\n<w 1.ndjson>\n<postgres://a:1?x=*>\n<postgres://b:2>\n<postgres://c:3>\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// Without --start-at and without a limit.
	out, err = exec.Command("sh", "-c", script, "sh", "", addrs, "", fake, "run").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "<run>\n<postgres://a:1?x=*>") {
		t.Errorf("no start-at: %v %s", err, out)
	}
}

// TestWorkloadDriverGolden pins the dry-run of the 100k plan with
// driver: workload.
func TestWorkloadDriverGolden(t *testing.T) {
	data, err := os.ReadFile("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tpcc-100k-workload.yaml")
	if err := os.WriteFile(file, []byte(withWorkloadDriver(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := dryRun(t, file)
	golden(t, "dryrun/driver-workload/tpcc-100k.golden", out)
}
