package stages_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// golden compares got with testdata/name (see internal/golden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got)
}

func shippedPlans(t testing.TB) []string {
	files, err := filepath.Glob("../../plans/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no plans under ../../plans: %v", err)
	}
	return files
}

// dryRun is what `benchrig run --dry-run` prints, with a fixed clock and
// driver path so the output is reproducible.
func dryRun(t testing.TB, file string) ([]byte, *remote.Recorder) {
	return dryRunOf(t, file, stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"})
}

// dryRunOf is dryRun with compile options (a teardown).
func dryRunOf(t testing.TB, file string, opt stages.Options) ([]byte, *remote.Recorder) {
	stages.WithLicense(t)
	p, err := plan.LoadPlan(file)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := stages.Compile(p, opt)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rec := remote.NewRecorder()
	r := &runner.Runner{
		Exec: rec, Observers: []runner.Observer{&runner.Console{W: &out, Listing: true}}, Limit: p.SSH.Concurrency,
		Now:       func() time.Time { return time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC) },
		StartLead: 10 * time.Second,
		Sleep:     func(context.Context, time.Duration) error { return nil },
	}
	if err := r.Run(context.Background(), compiled); err != nil {
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

// TestTeardownDryRunGolden pins the teardown of the 81-node clusters of
// both releases (v20.1's 100k recipe, v25.4's Large page): jobs, then
// SIGTERM to every node in one phase, then each node's wait.
func TestTeardownDryRunGolden(t *testing.T) {
	for _, name := range []string{"tpcc-100k", "tpcc-v25.4-large"} {
		t.Run(name, func(t *testing.T) {
			out, _ := dryRunOf(t, "../../plans/"+name+".yaml", stages.Options{Only: []string{"teardown"}})
			golden(t, "dryrun/teardown-"+name+".golden", out)
		})
	}
}

// TestDryRunListsWhatIsSent checks that the listing and the executor saw
// the same calls: every recorded command appears, verbatim, in the output
// once scripts are shown by name.
func TestDryRunListsWhatIsSent(t *testing.T) {
	for _, f := range shippedPlans(t) {
		out, rec := dryRun(t, f)
		p, _ := plan.LoadPlan(f)
		compiled, _ := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig/bin/benchrig"})
		n := 0
		for _, st := range compiled {
			for _, s := range st.Steps {
				if s.Kind == stages.Wait {
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
			for script, name := range stages.ScriptNames {
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
	out, rec := dryRun(t, "../../plans/tpcc-100k.yaml")
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
	p, _ := plan.LoadPlan("../../plans/tpcc-100k.yaml")
	compiled, _ := stages.Compile(p, stages.Options{Only: []string{"configure"}})
	var found bool
	for _, s := range compiled[0].Steps {
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
	for _, s := range compiled[0].Steps {
		if s.Cmd.Stdin != "" {
			if _, err := s.Cmd.RevealStdin(); err == nil || !strings.Contains(err.Error(), "COCKROACH_LICENSE") {
				t.Errorf("missing licence: want an error naming the variable, got %v", err)
			}
		}
	}
}

// TestSearchDryRun: the dry-run lists the iterations a search takes when
// every one passes, each with its run, downloads and check.
func TestSearchDryRun(t *testing.T) {
	planText := strings.Replace(string(mustRead(t, "../../plans/local.yaml")), "  duration: 1m\n", "  duration: 1m\n  search: {min: 2, max: 2}\n", 1)
	p, err := plan.ParsePlan("../../plans/local.yaml", []byte(planText))
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := stages.Compile(p, stages.Options{Only: []string{"run"}, DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &runner.Runner{Exec: remote.NewRecorder(), Observers: []runner.Observer{&runner.Console{W: &out, Listing: true}}, Sleep: func(context.Context, time.Duration) error { return nil }}
	if err := r.Run(context.Background(), compiled); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"search: trying --active-warehouses=2",
		"--active-warehouses 2 --partition-affinity 0",
		"get benchrig-local/load1/workload1.search-2.histogram.ndjson",
		"benchrig tpcc merge --check --warehouses 2 --json results/merged.search-2.result.json results/load1/workload1.search-2.histogram.ndjson",
		"search: the largest passing --active-warehouses is 2",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dry-run lacks %q:\n%s", want, out.String())
		}
	}
}

// BenchmarkDryRun100k measures what `benchrig run --dry-run
// plans/tpcc-100k.yaml` does: load and validate the 86-host plan,
// compile it, and list every step through the recording executor.
func BenchmarkDryRun100k(b *testing.B) {
	stages.WithLicense(b)
	for b.Loop() {
		p, err := plan.LoadPlan("../../plans/tpcc-100k.yaml")
		if err != nil {
			b.Fatal(err)
		}
		compiled, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		r := &runner.Runner{Exec: remote.NewRecorder(), Observers: []runner.Observer{&runner.Console{W: &out, Listing: true}}, Limit: p.SSH.Concurrency,
			Sleep: func(context.Context, time.Duration) error { return nil }}
		if err := r.Run(context.Background(), compiled); err != nil {
			b.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDryRun100kByPatchLevel pins what the 100k plan's dry-run shows, on its own archive (v20.1.17) and on a v20.1.8 one
// (with a golden for the latter): the generator version in every
// workload:// source, statistics for the nine tables stamped with the
// import's time, the objects the build's workload partitions, the item
// replicas replicated_idx_0..26, and a partitioning run that is not
// judged.
func TestDryRun100kByPatchLevel(t *testing.T) {
	data, err := os.ReadFile("../../plans/tpcc-100k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		build, gen, other string
		orderIdx, fkIdx   bool
		golden            string
	}{
		{"v20.1.17", "2.2.0", "2.1.0", true, false, ""},
		{"v20.1.8", "2.1.0", "2.2.0", false, true, "dryrun/tpcc-100k-v20.1.8.golden"},
	} {
		t.Run(tc.build, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "tpcc-100k.yaml")
			text := strings.ReplaceAll(string(data), "cockroach-v20.1.17", "cockroach-"+tc.build)
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			raw, _ := dryRun(t, file)
			out := string(raw)
			if tc.golden != "" {
				golden(t, tc.golden, raw)
			}
			if !strings.Contains(out, "&version="+tc.gen+"&") || strings.Contains(out, "version="+tc.other) {
				t.Errorf("want version=%s and no version=%s", tc.gen, tc.other)
			}
			if n := strings.Count(out, "INJECT STATISTICS"); n != 9 {
				t.Errorf("statistics for %d tables, want 9", n)
			}
			if strings.Contains(out, "2018-") {
				t.Error("a 2018 date")
			}
			if got := strings.Contains(out, `ALTER INDEX "order"@order_idx PARTITION BY`); got != tc.orderIdx {
				t.Errorf("order_idx partitioned: %v", got)
			}
			if got := strings.Contains(out, "fk_idx PARTITION BY"); got != tc.fkIdx {
				t.Errorf("an FK index partitioned: %v", got)
			}
			for i := 0; i <= 27; i++ {
				if got := strings.Contains(out, fmt.Sprintf("CREATE UNIQUE INDEX replicated_idx_%d ON item", i)); got != (i < 27) {
					t.Errorf("replicated_idx_%d: %v", i, got)
				}
			}
			if !strings.Contains(out, "--duration 1m --ramp 1ms --no-verdict") || !strings.Contains(out, "not judged") {
				t.Error("the partitioning run is judged")
			}
		})
	}
}
