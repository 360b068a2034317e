package rundir

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// TestStepErrorHidesQuotedSecret: a licence with a quote is handed over
// as an SQL literal (the quote doubled); a program that fails and echoes
// it back raw or as given must leave it in no error, state or log.
func TestStepErrorHidesQuotedSecret(t *testing.T) {
	const raw = `ab'c"d 7x`
	t.Setenv("BENCHRIG_TEST_LICENSE", raw)
	dir := t.TempDir()
	c := remote.Cmd{
		// Echo stdin as given and with the SQL quoting undone, then fail.
		Args:    []string{"sh", "-c", `in=$(cat); echo "$in"; printf '%s\n' "$in" | sed "s/''/'/g" >&2; exit 1`},
		Stdin:   "SET CLUSTER SETTING enterprise.license = " + remote.Placeholder("license") + ";\n",
		Secrets: map[string]remote.Secret{"license": sqlLiteralSecret("BENCHRIG_TEST_LICENSE")},
	}
	list := []stages.Stage{{Name: "configure", Steps: []stages.Step{{Host: "h", Kind: stages.Exec, What: "licence", Cmd: c}}}}
	var out bytes.Buffer
	st := NewState(filepath.Join(dir, "state.json"), "plan.yaml", "sum", StateOptions{}, list, time.Now())
	r := &runner.Runner{Exec: remote.NewLocal(remote.LocalConfig{Output: &out, Hosts: []string{"h"}}),
		Observers: []runner.Observer{&Logs{Dir: filepath.Join(dir, "logs")}, st, &runner.Console{W: &out}}, Progress: st}
	err := r.Run(context.Background(), list)
	if err == nil {
		t.Fatal("the failing step succeeded")
	}
	state, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	log, _ := os.ReadFile(filepath.Join(dir, "logs", "configure", "h.log"))
	if !strings.Contains(string(log), "enterprise.license") {
		t.Fatalf("the log lacks the step's output:\n%s", log)
	}
	for what, text := range map[string]string{"error": err.Error(), "state": string(state), "log": string(log), "console": out.String()} {
		for _, form := range []string{raw, `ab''c"d 7x`, `ab'c\"d 7x`, "c\"d", `c\"d`} {
			if strings.Contains(text, form) {
				t.Errorf("the %s shows the secret as %q:\n%s", what, form, text)
			}
		}
	}
}

// sqlLiteralSecret reads a variable and hands it over as an SQL literal,
// as the cockroach flavor's licence does.
type sqlLiteralSecret string

func (s sqlLiteralSecret) Name() string { return "license" }

func (s sqlLiteralSecret) Reveal() (string, error) {
	return remote.SQLLiteral(os.Getenv(string(s))), nil
}
