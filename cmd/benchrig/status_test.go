package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

func checkSchema(t *testing.T, schema string, doc []byte) {
	t.Helper()
	s, err := jsonschema.Load("../../docs/schema/" + schema)
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(doc); len(errs) > 0 {
		t.Errorf("output does not match %s:\n%s\n%s", schema, strings.Join(errs, "\n"), doc)
	}
}

// TestPlanShowJSON: every shipped plan's --json output is one document
// matching docs/schema/plan.v1.json, without the licence key.
func TestPlanShowJSON(t *testing.T) {
	t.Setenv("COCKROACH_LICENSE", "crl-0-SECRETKEYS")
	plans, _ := filepath.Glob("../../plans/*.yaml")
	for _, p := range plans {
		code, out, errOut := runCLI(t, "plan", "show", p, "--json")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", p, code, errOut)
		}
		checkSchema(t, "plan.v1.json", []byte(out))
		if strings.Contains(out, "SECRETKEY") {
			t.Errorf("%s: the licence key is in the output", p)
		}
		var v stages.PlanView
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Nodes) == 0 || len(v.URLs) == 0 {
			t.Errorf("%s: %v %+v", p, err, v)
		}
	}
}

// finishedRun is a run directory whose every stage is done.
func finishedRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	list := []stages.Stage{{Name: "run", Steps: []stages.Step{{Host: "load1", Kind: stages.Exec, What: "x", Cmd: remote.Cmd{Args: []string{"true"}}}}}}
	st := rundir.NewState(filepath.Join(dir, rundir.StateFile), "plans/local.yaml", "sum", rundir.StateOptions{}, list, time.Now())
	st.Stages[0].Status, st.Stages[0].Hosts[0].Status, st.Stages[0].Hosts[0].Done = rundir.Done, rundir.Done, 1
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStatusModes: --json is one schema-valid document; --watch on a
// pipe prints plain lines (no terminal escapes) and ends with the run.
func TestStatusModes(t *testing.T) {
	dir := finishedRun(t)
	code, out, errOut := runCLI(t, "status", dir, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkSchema(t, "status.v1.json", []byte(out))
	code, out, errOut = runCLI(t, "status", "--watch", dir)
	if code != exitOK || strings.Count(out, "\n") != 1 || !strings.Contains(out, "stage run done: 1/1 hosts done; run finished") || strings.Contains(out, "\x1b") {
		t.Errorf("status --watch on a pipe: exit %d\n%q\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "status", "--watch", "--json", dir)
	if code != exitOK || strings.Count(out, "\n") != 1 {
		t.Errorf("status --watch --json: exit %d\n%s", code, out)
	}
	checkSchema(t, "status.v1.json", []byte(out))
	if code, _, _ := runCLI(t, "status", "--watch", "--interval", "1ms", dir); code != exitUsage {
		t.Errorf("--interval 1ms: exit %d", code)
	}
}
