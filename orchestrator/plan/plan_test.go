package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
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

// withLicense gives the shipped plans' licence reference a value unless
// the test set one: validation resolves it.
func withLicense(t testing.TB) {
	if _, ok := os.LookupEnv("COCKROACH_LICENSE"); !ok {
		t.Setenv("COCKROACH_LICENSE", "crl-0-test")
	}
}

// TestMissingFieldPointsAtItsMapping: a required field the plan leaves out
// is reported at the mapping that should hold it, not at 1:1.
func TestMissingFieldPointsAtItsMapping(t *testing.T) {
	data, err := os.ReadFile("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "  warehouses: 2\n", "", 1)
	tpccLine := 1 + strings.Count(text[:strings.Index(text, "\ntpcc:\n")+1], "\n")
	_, err = ParsePlan("local.yaml", []byte(text))
	want := fmt.Sprintf("local.yaml:%d:3: tpcc.warehouses:", tpccLine+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("want %q in %v", want, err)
	}
}
