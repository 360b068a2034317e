package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/rundir"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/tpcc/histogram"
)

// liveRun makes a run directory driven by a live process (a sleep whose
// pid is in the lock file), in its run stage. finish ends the run: the
// stages done, live.json final, the process gone.
func liveRun(t *testing.T) (dir string, finish func()) {
	t.Helper()
	dir = t.TempDir()
	step := func(h string) stages.Step {
		return stages.Step{Host: h, Kind: stages.Exec, What: "x", Cmd: remote.Cmd{Args: []string{"true"}}}
	}
	list := []stages.Stage{{Name: "run", Steps: []stages.Step{step("load1"), step("load2")}}, {Name: "merge", Steps: []stages.Step{step("local")}}}
	st := rundir.NewState(filepath.Join(dir, rundir.StateFile), "plans/local.yaml", "sum", rundir.StateOptions{}, list, time.Now())
	now := time.Now()
	st.Stages[0].Status, st.Stages[0].Started = rundir.Running, &now
	for i := range st.Stages[0].Hosts {
		st.Stages[0].Hosts[i].Status, st.Stages[0].Hosts[i].Current = rundir.Running, "run TPC-C"
	}
	if err := st.Save(); err != nil {
		t.Fatal(err)
	}
	if err := rundir.WriteLive(dir, &rundir.Live{Updated: now, TpmC: 1200, Hosts: []rundir.LiveHost{{Host: "load1", TpmC: 500, Window: 5}, {Host: "load2", TpmC: 700, Window: 5}}}); err != nil {
		t.Fatal(err)
	}
	p := exec.Command("sleep", "60")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })
	if err := os.WriteFile(filepath.Join(dir, rundir.LockFile), []byte(strconv.Itoa(p.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, func() {
		for i := range st.Stages {
			st.Stages[i].Status = rundir.Done
			for j := range st.Stages[i].Hosts {
				st.Stages[i].Hosts[j].Status, st.Stages[i].Hosts[j].Done, st.Stages[i].Hosts[j].Current = rundir.Done, 1, ""
			}
		}
		if err := st.Save(); err != nil {
			t.Error(err)
		}
		_ = p.Process.Kill()
		_ = p.Wait()
	}
}

// TestWatch follows a run to its end in the three modes: plain lines
// (one per change, the live tpmC in them), the in-place terminal view,
// and JSON lines.
func TestWatch(t *testing.T) {
	for _, mode := range []string{"plain", "terminal", "json"} {
		t.Run(mode, func(t *testing.T) {
			dir, finish := liveRun(t)
			var out syncbuf.Buffer
			done := make(chan error, 1)
			go func() {
				done <- Watch(context.Background(), &out, dir, WatchOptions{Every: 20 * time.Millisecond, InPlace: mode == "terminal", JSON: mode == "json"})
			}()
			time.Sleep(200 * time.Millisecond)
			finish()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("watch did not end with the run")
			}
			text := out.String()
			switch mode {
			case "plain":
				lines := strings.Split(strings.TrimSpace(text), "\n")
				if len(lines) != 2 || !strings.Contains(lines[0], "stage run running: 0/2 hosts done") || !strings.Contains(lines[0], "tpmC 1200.0 (load1 500.0, load2 700.0)") ||
					!strings.Contains(lines[1], "run finished") || strings.Contains(text, "\x1b") {
					t.Errorf("plain lines (want one per change, no escapes):\n%s", text)
				}
			case "terminal":
				if strings.Count(text, clearScreen) < 2 || !strings.Contains(text, "live: tpmC 1200.0") || !strings.Contains(text, "driven by benchrig pid") || !strings.HasSuffix(strings.TrimSpace(text), "finished") {
					t.Errorf("terminal frames:\n%q", text)
				}
			case "json":
				// Two documents, or three when a poll fell between the
				// state's last save and the process's exit.
				lines := strings.Split(strings.TrimSpace(text), "\n")
				var first, last rundir.View
				if len(lines) < 2 || len(lines) > 3 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
					t.Fatalf("want two or three JSON lines:\n%s", text)
				}
				if !first.Driven || first.Current != "run" || first.Live == nil || first.Live.TpmC != 1200 || !last.Finished || last.Driven {
					t.Errorf("first %+v\nlast %+v", first, last)
				}
			}
		})
	}
}

// TestLiveHostReadsTicks: the live view's tpmC of a host is its newest
// New-Order ticks (a real histogram file, read through sh, tail and
// grep), ignoring the other transactions and a line being written.
func TestLiveHostReadsTicks(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	enc := histogram.NewEncoder(&b)
	t0 := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for s := 1; s <= 30; s++ {
		for _, name := range histogram.TPCCNames() {
			h := histogram.NewHistogram()
			n := 1
			if name == histogram.NewOrder {
				n = 10 // 10 New-Orders a second: 600 tpmC
				if s <= 25 {
					n = 1
				}
			}
			for range n {
				h.RecordValue(int64(20 * time.Millisecond))
			}
			if err := enc.Encode(histogram.Tick{Name: name, Hist: histogram.Export(h), Elapsed: time.Second, Now: t0.Add(time.Duration(s) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	b.WriteString(`{"Name":"newOrder","Hist":{"Lowest`) // torn
	if err := os.WriteFile(filepath.Join(dir, "w1.histogram.ndjson"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &liveView{exec: remote.NewLocal(remote.LocalConfig{})}
	got := l.readHost(context.Background(), plan.Host{Name: "load1", Dir: dir}, "w1.histogram.ndjson")
	if got.Error != "" || got.TpmC != 600 || got.Window != 5 || got.Last == nil || !got.Last.Equal(t0.Add(30*time.Second)) {
		t.Errorf("live host %+v, want 600 tpmC over the last 5 s", got)
	}
	none := l.readHost(context.Background(), plan.Host{Name: "load1", Dir: dir}, "missing.ndjson")
	if none.TpmC != 0 || none.Error != "" {
		t.Errorf("before the first tick: %+v", none)
	}
}

// FuzzLiveTicks: whatever a host's tail prints, the live figures are
// finite and not negative, and nothing panics.
func FuzzLiveTicks(f *testing.F) {
	f.Add([]byte(`{"Name":"newOrder","Hist":{"LowestTrackableValue":1,"HighestTrackableValue":100,"SignificantFigures":1,"Counts":[1,2]},"Elapsed":1000000000,"Now":"2026-12-03T09:00:00Z"}` + "\n"))
	f.Add([]byte(`{"Name":"newOrder","Hist":{"Counts":[9223372036854775807,9223372036854775807]},"Elapsed":1,"Now":"2026-12-03T09:00:00Z"}`))
	f.Add([]byte(`{"Name":"newOrder","Hist":{"Counts":[-5]},"Elapsed":-1}`))
	f.Add([]byte("garbage\n{\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		lh := liveTicksOf("h", out)
		// The most a host can claim: liveTicks ticks of maxLiveCounts full
		// buckets, each over a millisecond.
		if math.IsNaN(lh.TpmC) || math.IsInf(lh.TpmC, 0) || lh.TpmC < 0 || lh.Window < 0 ||
			lh.TpmC > float64(maxLiveCounts)*maxLiveBucket*60000 {
			t.Fatalf("live host %+v", lh)
		}
	})
}
