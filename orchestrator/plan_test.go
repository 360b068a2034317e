package orchestrator

import (
	"bytes"
	"context"
	"errors"
	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
)

// golden compares got with testdata/name (see internal/golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

func shippedPlans(t testing.TB) []string {
	files, err := filepath.Glob("../plans/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no plans under ../plans: %v", err)
	}
	return files
}

// TestShippedPlansValidate loads every plan under plans/, so a shipped
// plan can never rot.
func TestShippedPlansValidate(t *testing.T) {
	withLicense(t)
	for _, f := range shippedPlans(t) {
		if _, err := LoadPlan(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// withLicense gives the shipped plans' licence reference a value unless
// the test set one: validation resolves it.
func withLicense(t testing.TB) {
	if _, ok := os.LookupEnv("COCKROACH_LICENSE"); !ok {
		t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	}
}

// dryRun is what `benchrig run --dry-run` prints, with a fixed clock and
// driver path so the output is reproducible.
func dryRun(t testing.TB, file string) ([]byte, *remote.Recorder) {
	withLicense(t)
	p, err := LoadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	stages, err := Compile(p, Options{DriverPath: "/opt/benchrig/bin/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rec := remote.NewRecorder()
	r := &Runner{
		Exec: rec, Out: &out, Listing: true, Limit: p.SSH.Concurrency,
		Now:       func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) },
		StartLead: 10 * time.Second,
		Sleep:     func(context.Context, time.Duration) error { return nil },
	}
	if err := r.Run(context.Background(), stages); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), rec
}

// TestDryRunGolden pins the dry-run of every shipped plan: each command,
// transfer and SQL statement per host.
func TestDryRunGolden(t *testing.T) {
	for _, f := range shippedPlans(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			out, _ := dryRun(t, f)
			golden(t, "dryrun/"+name+".golden", out)
		})
	}
}

// TestDryRunListsWhatIsSent checks that the listing and the executor saw
// the same calls: every recorded command appears, verbatim, in the output
// once scripts are shown by name.
func TestDryRunListsWhatIsSent(t *testing.T) {
	for _, f := range shippedPlans(t) {
		out, rec := dryRun(t, f)
		p, _ := LoadPlan(f)
		stages, _ := Compile(p, Options{DriverPath: "/opt/benchrig/bin/benchrig"})
		n := 0
		for _, st := range stages {
			for _, s := range st.Steps {
				if s.Kind == Wait {
					n += max(1, s.Settle) // the recorder always succeeds
				} else {
					n++
				}
			}
		}
		if got := len(rec.Entries()); got != n {
			t.Errorf("%s: executor saw %d calls for %d steps", f, got, n)
		}
		for _, e := range rec.Entries() {
			text := e.Text
			for script, name := range scriptNames {
				text = strings.ReplaceAll(text, remote.Quote(script), remote.Quote("<"+name+">"))
			}
			first := strings.SplitN(text, "\n", 2)[0]
			if !bytes.Contains(out, []byte(first)) {
				t.Errorf("%s: host %s: call not in the listing: %s", f, e.Host, first)
			}
		}
	}
}

// TestLicenseNeverShown: the key is read only when the step runs, and the
// dry-run shows **** even when the variable holds a key.
func TestLicenseNeverShown(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-SECRETSECRET")
	out, rec := dryRun(t, "../plans/tpcc-100k.yaml")
	if bytes.Contains(out, []byte("SECRETSECRET")) {
		t.Fatal("licence key in dry-run output")
	}
	for _, e := range rec.Entries() {
		if strings.Contains(e.Text, "SECRETSECRET") {
			t.Fatal("licence key in a recorded call")
		}
	}
	if !bytes.Contains(out, []byte("enterprise.license = ****;")) {
		t.Error("the licence statement is not shown masked")
	}
	// When the step really runs, the executor gets the key on stdin.
	p, _ := LoadPlan("../plans/tpcc-100k.yaml")
	stages, _ := Compile(p, Options{Only: []string{"configure"}})
	var found bool
	for _, s := range stages[0].Steps {
		if s.Cmd.Stdin == "" {
			continue
		}
		found = true
		in, err := s.Cmd.RevealStdin()
		if err != nil || in != "SET CLUSTER SETTING enterprise.license = 'crl-0-SECRETSECRET';\n" {
			t.Errorf("revealed stdin = %q, %v", in, err)
		}
		for _, a := range s.Cmd.Args {
			if strings.Contains(a, "SECRET") {
				t.Error("licence key on the command line")
			}
		}
	}
	if !found {
		t.Error("no licence step")
	}
	t.Setenv("COCKROACH_LICENSE", "")
	for _, s := range stages[0].Steps {
		if s.Cmd.Stdin != "" {
			if _, err := s.Cmd.RevealStdin(); err == nil || !strings.Contains(err.Error(), "COCKROACH_LICENSE") {
				t.Errorf("missing licence: want an error naming the variable, got %v", err)
			}
		}
	}
}

// TestInvalidPlans runs the corpus of malformed plans: each must be
// rejected with exactly the problems in its .want file, as file:line:col.
func TestInvalidPlans(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) < 25 {
		t.Fatalf("only %d malformed plans in the corpus", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) {
			p, err := LoadPlan(f)
			var pe *PlanError
			if !errors.As(err, &pe) {
				t.Fatalf("want a *PlanError, got plan %v, err %v", p != nil, err)
			}
			var b strings.Builder
			for _, pr := range pe.Problems {
				if !strings.HasPrefix(pr.String(), f+":") {
					t.Errorf("problem without the file name: %s", pr)
				}
				b.WriteString(pr.String() + "\n")
			}
			golden(t, "invalid/"+name+".want", []byte(b.String()))
		})
	}
}

// TestHostileValues: shell and SQL metacharacters in plan values stay
// literal in every generated command. Each command line is parsed by a
// real sh, which must hand the program exactly the planned arguments.
func TestHostileValues(t *testing.T) {
	hostile := "x'; rm -rf / #$(id)`id`\"\\"
	plan := strings.NewReplacer("HOSTILE", strings.ReplaceAll(hostile, `\`, `\\`), "QUOTED", strings.ReplaceAll(strings.ReplaceAll(hostile, `\`, `\\`), `"`, `\"`)).Replace(`version: 1
name: hostile
flavor: cockroach
nodes:
  - name: n[1-3]
    addr: 10.9.0.[1-3]
    racks: 3
    store: /data/n
workload:
  - name: w1
binaries:
  database: {url: "https://example.invalid/c?a=QUOTED", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
  swap: {url: "https://example.invalid/d$(reboot)", sha256: 0000000000000000000000000000000000000000000000000000000000000000}
start:
  flags: ["--attrs=QUOTED", "; reboot"]
settings:
  cluster:
    kv.snapshot_rebalance.max_rate: "QUOTED"
license:
  organization: "QUOTED"
  key: {env: LIC}
tpcc:
  warehouses: 3
  partitions: 3
  ramp: 1m
  duration: 1m
  extra_flags: ["--note=QUOTED"]
stages: [install, start, init, configure, import, partition, swap, run]
`)
	t.Setenv("LIC", "crl-0-x")
	p, err := ParsePlan("hostile.yaml", []byte(plan))
	if err != nil {
		t.Fatal(err)
	}
	stages, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, st := range stages {
		for _, s := range st.Steps {
			if len(s.Cmd.Args) == 0 {
				continue
			}
			checkParses(t, s.Cmd)
			if strings.Contains(strings.Join(s.Cmd.Args, " "), hostile) {
				seen++
			}
			for _, a := range s.Cmd.Args {
				if strings.Contains(a, "SET CLUSTER SETTING") && strings.Contains(a, "x'") && !strings.Contains(a, "'x''; rm -rf /") {
					t.Errorf("SQL value not quoted as a literal: %s", a)
				}
			}
		}
	}
	if seen < 5 {
		t.Errorf("the hostile value reached only %d commands; the test plan is not exercising quoting", seen)
	}
}

// checkParses runs `sh -c 'printf ...' ShellJoin(c)` and compares the
// arguments the program would get with c.Args.
func checkParses(t *testing.T, c remote.Cmd) {
	t.Helper()
	line := remote.ShellJoin(remote.Cmd{Args: c.Args})
	probe := "set -- " + line + `; printf '%s\0' "$@"`
	out, err := execSh(probe)
	if err != nil {
		t.Fatalf("sh rejected %s: %v", line, err)
	}
	want := strings.Join(c.Args, "\x00") + "\x00"
	if out != want {
		t.Errorf("sh split the line differently:\n%s\ngot  %q\nwant %q", line, out, want)
	}
}
