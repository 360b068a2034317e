package rundir

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/jsonschema"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// midRun writes the state of a run in its run stage: install done, run
// running with load1 on its job and load2 done, and a live.json.
func midRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	step := func(h string) stages.Step {
		return stages.Step{Host: h, Kind: stages.Exec, What: "x", Cmd: remote.Cmd{Args: []string{"true"}}}
	}
	list := []stages.Stage{
		{Name: "install", Steps: []stages.Step{step("load1"), step("load2")}},
		{Name: "run", Steps: []stages.Step{step("load1"), step("load2")}},
		{Name: "collect", Steps: []stages.Step{step("load1")}},
	}
	st := NewState(filepath.Join(dir, StateFile), "plans/local.yaml", "sum", StateOptions{}, list, t0)
	st.Stages[0].Status = Done
	for i := range st.Stages[0].Hosts {
		st.Stages[0].Hosts[i].Status, st.Stages[0].Hosts[i].Done = Done, 1
	}
	st.Stages[1].Status, st.Stages[1].Started = Running, &t0
	st.Stages[1].Hosts[0].Status, st.Stages[1].Hosts[0].Current = Running, "run TPC-C"
	st.Stages[1].Hosts[1].Status, st.Stages[1].Hosts[1].Done = Done, 1
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	last := t0.Add(20 * time.Second)
	if err := WriteLive(dir, &Live{Updated: t0.Add(21 * time.Second), TpmC: 1234.5, Hosts: []LiveHost{
		{Host: "load1", TpmC: 600, Window: 5, Last: &last}, {Host: "load2", TpmC: 634.5, Window: 5, Last: &last}}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestViewOfARunningRun(t *testing.T) {
	dir := midRun(t)
	v, err := NewView(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v.Current != "run" || v.Finished || v.Failed || v.Driven || v.Stages[1].HostsDone != 1 || v.Live == nil {
		t.Fatalf("view %+v", v)
	}
	line := v.Line(time.Date(2026, 12, 3, 9, 0, 21, 0, time.Local))
	for _, want := range []string{"09:00:21 stage run running: 1/2 hosts done", "load1 0/1 run TPC-C", "tpmC 1234.5 (load1 600.0, load2 634.5)", "no benchrig process drives it"} {
		if !strings.Contains(line, want) {
			t.Errorf("line lacks %q:\n%s", want, line)
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jsonschema.Load("../../docs/schema/status.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(data); len(errs) > 0 {
		t.Errorf("status JSON does not match docs/schema/status.v1.json:\n%s\n%s", strings.Join(errs, "\n"), data)
	}
}

// TestDriven: the pid in the lock file tells a driven run from one whose
// process is gone.
func TestDriven(t *testing.T) {
	dir := t.TempDir()
	if _, live := Driven(dir); live {
		t.Error("a run without a lock file is driven")
	}
	p := exec.Command("sleep", "30")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(strconv.Itoa(p.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if pid, live := Driven(dir); !live || pid != p.Process.Pid {
		t.Errorf("Driven = %d, %v with pid %d alive", pid, live, p.Process.Pid)
	}
	_ = p.Process.Kill()
	_ = p.Wait()
	if _, live := Driven(dir); live {
		t.Error("a dead holder still drives the run")
	}
}

// TestViewNamesADiedHost: status --json carries a host's died measured
// run (the text status prints it as INCOMPLETE), valid against
// status.v1.json.
func TestViewNamesADiedHost(t *testing.T) {
	dir := midRun(t)
	st, err := ReadState(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 3, 9, 0, 7, 0, time.UTC)
	st.Stages[1].Hosts[1].Died = &Died{Step: "run TPC-C", Job: "run.1", Window: "09:00:02-09:00:12", Reason: "killed (SIGKILL)", At: at}
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	v, err := NewView(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if d := v.Stages[1].Hosts[1].Died; d == nil || d.Reason != "killed (SIGKILL)" || !strings.Contains(string(data), `"died":{"step":"run TPC-C"`) {
		t.Errorf("the view lacks load2's death: %s", data)
	}
	s, err := jsonschema.Load("../../docs/schema/status.v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs := s.Validate(data); len(errs) > 0 {
		t.Errorf("status JSON does not match docs/schema/status.v1.json:\n%s\n%s", strings.Join(errs, "\n"), data)
	}
}

// TestViewNeutralisesHostStrings: a host's error (its stderr), outage
// error, death reason and live error carry escape sequences, bidi
// overrides and markup; `status --json` decoded and printed shows them as
// text (no ESC, no U+202E), and its raw bytes hold no '<' either. Without
// neutral the decoded strings held the ESC and the override whole.
func TestViewNeutralisesHostStrings(t *testing.T) {
	dir := midRun(t)
	st, err := ReadState(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	hostile := "\x1b]52;c;cHduZWQ=\a\x1b[2J\u202etxt.exe <img src=x onerror=alert(1)>"
	h := &st.Stages[1].Hosts[0]
	h.Error = hostile
	h.Unreachable = &Outage{Error: hostile}
	h.Died = &Died{Reason: hostile, Step: hostile}
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	l, _ := ReadLive(dir)
	l.Hosts[0].Error = hostile
	if err := WriteLive(dir, l); err != nil {
		t.Fatal(err)
	}
	v, err := NewView(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "<") {
		t.Errorf("status JSON holds a raw '<': %s", data)
	}
	var back struct {
		Stages []struct {
			Hosts []struct {
				Error       string
				Unreachable struct{ Error string }
				Died        struct{ Reason, Step string }
			}
		}
		Live struct{ Hosts []struct{ Error string } }
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	hv := back.Stages[1].Hosts[0]
	for _, s := range []string{hv.Error, hv.Unreachable.Error, hv.Died.Reason, hv.Died.Step, back.Live.Hosts[0].Error} {
		if strings.ContainsAny(s, "\x1b\a\u202e") || !strings.Contains(s, `\x1b`) {
			t.Errorf("a host string reaches status --json's reader raw: %q", s)
		}
	}
}
