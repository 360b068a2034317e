package remote

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
)

// TestShellJoinGolden pins the exact text sent to hosts for a set of
// commands, hostile values included.
func TestShellJoinGolden(t *testing.T) {
	cases := []struct {
		name string
		cmd  Cmd
	}{
		{"plain", Cmd{Args: []string{"cockroach", "start", "--insecure", "--locality=rack=0"}}},
		{"semicolon", Cmd{Args: []string{"echo", "; rm -rf /"}}},
		{"command substitution", Cmd{Args: []string{"echo", "$(id)", "`id`", "${HOME}"}}},
		{"quotes", Cmd{Args: []string{"echo", `it's "quoted"`, `'`, `''`}}},
		{"newline and tab", Cmd{Args: []string{"printf", "a\nb\tc"}}},
		{"glob and redirect", Cmd{Args: []string{"ls", "*", "?", "[a]", ">x", "<y", "a|b", "a&b"}}},
		{"empty argument", Cmd{Args: []string{"test", "", "=", ""}}},
		{"tilde and hash", Cmd{Args: []string{"echo", "~", "#c", "a#b"}}},
		{"dir", Cmd{Dir: "/tmp/a dir; rm -rf /", Args: []string{"pwd"}}},
		{"env sorted", Cmd{Env: map[string]string{"ZED": "1", "ALPHA": "$(id)", "M": "x y"}, Args: []string{"env"}}},
		{"env bad name", Cmd{Env: map[string]string{"A;B": "v"}, Args: []string{"true"}}},
		{"assignment-looking program", Cmd{Args: []string{"A=b", "c"}}},
		{"assignment-looking program with env", Cmd{Env: map[string]string{"X": "1"}, Args: []string{"A=b", "c"}}},
		{"sql", Cmd{Args: []string{"cockroach", "sql", "--insecure", "-e", "SET CLUSTER SETTING cluster.organization = 'O''Brien; DROP'"}}},
	}
	var out bytes.Buffer
	for _, c := range cases {
		out.WriteString("# " + c.name + "\n" + ShellJoin(c.cmd) + "\n")
	}
	golden(t, "shelljoin.golden", out.Bytes())
}

// TestShellJoinRoundTrip runs every line through a real /bin/sh and checks
// that the program sees exactly the arguments, directory and environment
// it was given.
func TestShellJoinRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	dir := filepath.Join(t.TempDir(), "d ir;$(x)'q")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"", " ", "plain", "; rm -rf /", "$(id)", "`id`", "${HOME}", `it's`, `"`, `\`, `\'`,
		"a\nb", "\t", "*", "?", "[a]", ">x", "a|b", "a&b", "~", "#x", "!", "%", "é", "a=b", "--",
		"'$'", "\x01", strings.Repeat("x'", 50),
	}
	for _, arg := range hostile {
		c := Cmd{
			Dir:  dir,
			Env:  map[string]string{"BENCHRIG_T": arg},
			Args: []string{"sh", "-c", `printf '%s\0' "$PWD" "$BENCHRIG_T" "$@"`, "sh", arg, arg + "x"},
		}
		got, err := exec.Command(sh, "-c", ShellJoin(c)).Output()
		if err != nil {
			t.Fatalf("%q: %v (line %s)", arg, err, ShellJoin(c))
		}
		want := strings.Join([]string{dir, arg, arg, arg + "x"}, "\x00") + "\x00"
		if string(got) != want {
			t.Errorf("arg %q:\nline %s\ngot  %q\nwant %q", arg, ShellJoin(c), got, want)
		}
	}
	// A program name that looks like an assignment must still be run.
	for _, env := range []map[string]string{nil, {"X": "1"}} {
		c := Cmd{Env: env, Args: []string{"A=b"}}
		out, _ := exec.Command(sh, "-c", ShellJoin(c)).CombinedOutput()
		if !strings.Contains(string(out), "A=b") || !strings.Contains(string(out), "not found") {
			t.Errorf("env %v: %s: want the shell to look up the program \"A=b\", got %q", env, ShellJoin(c), out)
		}
	}
}

func TestStdinSecrets(t *testing.T) {
	c := Cmd{
		Args:    []string{"cockroach", "sql"},
		Stdin:   "SET CLUSTER SETTING enterprise.license = " + Placeholder("license") + ";\n",
		Secrets: map[string]Secret{"license": staticSecret{"license", "'crl-0-abc'"}},
	}
	if got := c.ShownStdin(); strings.Contains(got, "crl-0") || !strings.Contains(got, Redacted) {
		t.Errorf("ShownStdin leaks or lacks the mask: %q", got)
	}
	got, err := c.RevealStdin()
	if err != nil || got != "SET CLUSTER SETTING enterprise.license = 'crl-0-abc';\n" {
		t.Errorf("RevealStdin = %q, %v", got, err)
	}
}

type staticSecret struct{ name, value string }

func (s staticSecret) Name() string            { return s.name }
func (s staticSecret) Reveal() (string, error) { return s.value, nil }

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

// TestSecretCommandsDoNotStream: a command holding a secret never prints
// live (a program may echo its stdin); its output is still captured.
func TestSecretCommandsDoNotStream(t *testing.T) {
	var console bytes.Buffer
	l := NewLocal(LocalConfig{Output: &console})
	c := Cmd{Args: []string{"cat"}, Stdin: Placeholder("k") + "\n", Secrets: map[string]Secret{"k": staticSecret{"k", "s3cret"}}}
	res, err := l.Run(context.Background(), "h", c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(console.String(), "s3cret") {
		t.Errorf("secret streamed to the console: %q", console.String())
	}
	if !strings.Contains(string(res.Stdout), "s3cret") {
		t.Errorf("the output was not captured: %q", res.Stdout)
	}
	c.Secrets, c.Stdin = nil, "plain\n"
	if _, err := l.Run(context.Background(), "h", c); err != nil || !strings.Contains(console.String(), "plain") {
		t.Errorf("a command without secrets must stream: %q %v", console.String(), err)
	}
}
