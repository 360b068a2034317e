package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/benchrig/benchrig/internal/cliargs"
	"github.com/benchrig/benchrig/remote"
)

func TestReorderArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, tt := range []struct{ in, want string }{
		{"run PLAN --dry-run", "run --dry-run PLAN"},
		{"run PLAN --only swap --dry-run", "run --only swap --dry-run PLAN"},
		{"run --from=import PLAN -n", "run --from=import -n PLAN"},
		// A flag's value is kept with it, even when it looks like a flag.
		{"run PLAN --start-lead -1s", "run --start-lead -1s PLAN"},
		{"plan show PLAN --help", "plan show --help PLAN"},
		{"plan validate A B", "plan validate A B"},
		// Global flags given at a command level go to the front.
		{"compare A B --verbose --format json", "--verbose compare --format json A B"},
		{"--quiet compare A B", "--quiet compare A B"},
		// ... unless the command has its own flag of that name.
		{"crud URL -q", "crud -q URL"},
		// "--" ends flags: the remote command line stays as given.
		{"exec --hosts all -- ls -l --color", "exec --hosts all -- ls -l --color"},
		{"exec -- ls -l", "exec -- ls -l"},
		// Without "--", a token that is none of exec's flags ends the
		// flags: the rest is the command line.
		{"exec --hosts all uname -a --hosts x", "exec --hosts all uname -a --hosts x"},
		{"exec uname --verbose -a", "--verbose exec uname -a"},
		// Before any argument an unknown flag stays a flag (urfave then
		// says it is not defined).
		{"run --dyr-run PLAN", "run --dyr-run PLAN"},
		{"exec --plan P -- sh -c 'x --y'", "exec --plan P -- sh -c 'x --y'"},
		{"tpcc run postgres://h/db --duration 1m --warehouses 4", "tpcc run --duration 1m --warehouses 4 postgres://h/db"},
		{"check-result RUN --max-p95 newOrder=50ms --max-p95 payment=40ms", "check-result --max-p95 newOrder=50ms --max-p95 payment=40ms RUN"},
		// A subcommand name later in the arguments is an argument.
		{"report run", "report run"},
		{"compare A --", "compare A --"},
		{"run PLAN --generate-bash-completion", "run PLAN --generate-bash-completion"},
		{"", ""},
	} {
		in := append([]string{"benchrig"}, strings.Fields(tt.in)...)
		want := append([]string{"benchrig"}, strings.Fields(tt.want)...)
		if got := cliargs.Reorder(app, in); !slices.Equal(got, want) {
			t.Errorf("Reorder(%q)\n got  %q\n want %q", tt.in, got, want)
		}
	}
}

// The case, end to end: flags after the plan.
func TestFlagsAfterArguments(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "../../plans/local.yaml", "--dry-run")
	if code != exitOK || !strings.Contains(out, "dry run of plan local") {
		t.Errorf("run PLAN --dry-run: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "compare", fixtures+"runA", fixtures+"runB", "--format", "markdown")
	if code != exitOK || !strings.HasPrefix(out, "| run |") {
		t.Errorf("compare A B --format markdown: exit %d\n%s", code, out)
	}
}

func TestEnvironmentFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	var found []string
	for _, c := range app.Commands {
		for _, f := range c.Flags {
			if e, ok := f.(interface{ GetEnvVars() []string }); ok && len(e.GetEnvVars()) > 0 {
				found = append(found, c.Name+" "+f.Names()[0]+" "+e.GetEnvVars()[0])
				if f.Names()[0] == "insecure-ignore-host-keys" {
					t.Errorf("%s --insecure-ignore-host-keys can be set from the environment", c.Name)
				}
			}
		}
		if c.Name == "tpcc" || c.Name == "crud" {
			for _, s := range append([]*cli.Command{c}, c.Subcommands...) {
				for _, f := range s.Flags {
					if e, ok := f.(interface{ GetEnvVars() []string }); ok && len(e.GetEnvVars()) > 0 {
						t.Errorf("%s %s reads %v: drivers take no environment", c.Name, f.Names()[0], e.GetEnvVars())
					}
				}
			}
		}
	}
	for _, want := range []string{"run known-hosts BENCHRIG_KNOWN_HOSTS", "exec plan BENCHRIG_PLAN", "exec ssh-config BENCHRIG_SSH_CONFIG", "run runs-dir BENCHRIG_RUNS_DIR"} {
		if !slices.Contains(found, want) {
			t.Errorf("no %q among %q", want, found)
		}
	}
	// A set variable takes effect: BENCHRIG_QUIET=1 with --verbose is a
	// usage error, as the two flags are.
	t.Setenv("BENCHRIG_QUIET", "true")
	if code, _, errOut := runCLI(t, "--verbose", "version"); code != exitUsage || !strings.Contains(errOut, "exclude each other") {
		t.Errorf("BENCHRIG_QUIET + --verbose: exit %d %s", code, errOut)
	}
	// --quiet drops check-result's success line.
	if code, out, _ := runCLI(t, "check-result", fixtures+"runA", "--min-tpmc", "1"); code != exitOK || out != "" {
		t.Errorf("quiet check-result: exit %d, printed %q", code, out)
	}
}

func TestVerboseQuiet(t *testing.T) {
	if code, _, errOut := runCLI(t, "version", "--verbose", "--quiet"); code != exitUsage {
		t.Errorf("--verbose --quiet: exit %d %s", code, errOut)
	}
	if code, out, _ := runCLI(t, "check-result", fixtures+"runA", "--min-tpmc", "1", "-q"); code != exitOK || out != "" {
		t.Errorf("check-result -q printed %q (exit %d)", out, code)
	}
}

func TestVersionCommand(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "benchrig dev\ngo       go1.") || !strings.Contains(out, "dep      github.com/urfave/cli/v2 v2.") {
		t.Errorf("version: exit %d\n%s", code, out)
	}
}

func TestManPage(t *testing.T) {
	code, out, _ := runCLI(t, "man")
	if code != exitOK || !strings.Contains(out, ".TH benchrig 1") || !strings.Contains(out, "check-result") || !strings.Contains(out, "--max-p95") {
		t.Fatalf("man: exit %d\n%.400s", code, out)
	}
	if _, err := exec.LookPath("man"); err == nil {
		f := filepath.Join(t.TempDir(), "benchrig.1")
		os.WriteFile(f, []byte(out), 0o644)
		cmd := exec.Command("man", "-l", f)
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
		if got, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(got), "compare") {
			t.Errorf("man -l: %v\n%.400s", err, got)
		}
	}
}

// The bash script is run by bash: completion requests name the words a
// user would see.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	code, script, _ := runCLI(t, "completion", "bash")
	if code != exitOK {
		t.Fatal(code)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "benchrig.bash")
	os.WriteFile(f, []byte(script), 0o644)
	os.WriteFile(filepath.Join(dir, "plan.yaml"), nil, 0o644)
	for _, tt := range []struct {
		line string // the words; the last is being completed
		want []string
		not  []string
	}{
		{"benchrig co", []string{"compare", "completion"}, []string{"run"}},
		{"benchrig plan ", []string{"validate", "show"}, []string{"run"}},
		{"benchrig run plan.yaml --dr", []string{"--dry-run"}, nil},
		{"benchrig --verbose check-result --max-p9", []string{"--max-p90", "--max-p95", "--max-p99"}, []string{"--max-p50"}},
		{"benchrig run pl", []string{"plan.yaml"}, nil},
		{"benchrig tpcc run --w", []string{"--warehouses", "--wait", "--workers"}, []string{"--dry-run"}},
	} {
		words := strings.Split(tt.line, " ")
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, remote.Quote(w))
		}
		prog := "cd " + remote.Quote(dir) + " && source " + remote.Quote(f) + " && COMP_WORDS=(" + strings.Join(quoted, " ") + ") && COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _benchrig; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command(bash, "--norc", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.line, err, out)
		}
		got := strings.Fields(string(out))
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q offers %q, lacks %q", tt.line, got, w)
			}
		}
		for _, w := range tt.not {
			if slices.Contains(got, w) {
				t.Errorf("%q offers %q, should not offer %q", tt.line, got, w)
			}
		}
	}
}

func TestZshFishCompletion(t *testing.T) {
	code, zsh, _ := runCLI(t, "completion", "zsh")
	if code != exitOK || !strings.HasPrefix(zsh, "#compdef benchrig\n") || !strings.Contains(zsh, "bashcompinit") {
		t.Errorf("zsh: exit %d\n%.200s", code, zsh)
	}
	if path, err := exec.LookPath("zsh"); err == nil {
		f := filepath.Join(t.TempDir(), "_benchrig")
		os.WriteFile(f, []byte(zsh), 0o644)
		if out, err := exec.Command(path, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v\n%s", err, out)
		}
	}
	code, fish, _ := runCLI(t, "completion", "fish")
	if code != exitOK || !strings.Contains(fish, "complete -c benchrig") || !strings.Contains(fish, "check-result") {
		t.Errorf("fish: exit %d\n%.200s", code, fish)
	}
	if path, err := exec.LookPath("fish"); err == nil {
		f := filepath.Join(t.TempDir(), "benchrig.fish")
		os.WriteFile(f, []byte(fish), 0o644)
		if out, err := exec.Command(path, "--no-execute", f).CombinedOutput(); err != nil {
			t.Errorf("fish --no-execute: %v\n%s", err, out)
		}
	}
	if code, _, _ := runCLI(t, "completion", "tcsh"); code != exitUsage {
		t.Errorf("tcsh: exit %d", code)
	}
}

// Reordering only moves tokens: the output is a permutation of the
// input, the program name stays first, and what follows "--" keeps its
// order at the end.
func FuzzReorderArgs(f *testing.F) {
	for _, s := range []string{"run PLAN --dry-run", "exec --hosts all -- ls -l", "compare A B --verbose", "tpcc run u --duration", "--quiet -- x"} {
		f.Add(s)
	}
	app := newApp(io.Discard, io.Discard)
	f.Fuzz(func(t *testing.T, s string) {
		in := append([]string{"benchrig"}, strings.Fields(s)...)
		out := cliargs.Reorder(app, in)
		a, b := slices.Clone(in), slices.Clone(out)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) || out[0] != "benchrig" {
			t.Fatalf("%q -> %q: not a permutation", in, out)
		}
		if i := slices.Index(in, "--"); i >= 0 {
			tail := in[i:]
			if !slices.Equal(out[len(out)-len(tail):], tail) {
				t.Fatalf("%q -> %q: the part after -- moved", in, out)
			}
		}
	})
}
