package stages

import (
	"strings"
	"testing"
)

// TestCrudSamplesEveryHost: a crud run samples every node and workload
// host (started before the crud jobs, stopped after them) and collect
// fetches every host's samples besides the crud results.
func TestCrudSamplesEveryHost(t *testing.T) {
	p := pgPlan(t, 4, "benchmark: crud\ncrud: {goroutines: 2, records: 10}\n", "install, start, init, run, collect")
	list, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Stage{}
	for _, st := range list {
		byName[st.Name] = st
	}
	count := func(st Stage, what string) (n, phase int) {
		phase = -1
		for _, s := range st.Steps {
			if strings.HasPrefix(s.What, what) {
				n++
				phase = s.Phase
			}
		}
		return n, phase
	}
	run := byName["run"]
	started, p0 := count(run, "start host sampling")
	crud, p1 := count(run, "run crud")
	stopped, p2 := count(run, "stop host sampling")
	if started != 6 || crud != 2 || stopped != 6 || !(p0 < p1 && p1 < p2) {
		t.Errorf("run stage: %d samplers started (phase %d), %d crud jobs (phase %d), %d stopped (phase %d); want 6, 2, 6 in that order", started, p0, crud, p1, stopped, p2)
	}
	// The sampler reaches every host: sent to one, fetched by the others
	// (the install's distribution tree).
	sent, _ := count(byName["install"], "upload benchrig")
	fetched, _ := count(byName["install"], "fetch benchrig")
	if sent+fetched != 6 {
		t.Errorf("install puts the sampler on %d hosts (%d sent, %d fetched), want 6", sent+fetched, sent, fetched)
	}
	var got []string
	for _, s := range byName["collect"].Steps {
		got = append(got, s.Transfer.Local)
	}
	for _, want := range []string{"crud1.json", "crud2.json", "db1/hoststat.jsonl", "db4/hoststat.jsonl", "load2/hoststat.jsonl"} {
		found := false
		for _, g := range got {
			found = found || strings.HasSuffix(g, want)
		}
		if !found {
			t.Errorf("collect does not fetch %s: %q", want, got)
		}
	}
}
