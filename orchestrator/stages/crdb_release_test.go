package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/orchestrator/plan"
)

// victim starts a process that writes its pid file as a node started
// with --pid-file does; ignoreTERM makes it survive SIGTERM. A goroutine
// reaps it, so a stopped victim does not linger as a zombie that kill -0
// still finds.
func victim(t *testing.T, pidf string, ignoreTERM bool) (done <-chan struct{}) {
	t.Helper()
	script := `echo $$ > "$1"; exec sleep 60`
	if ignoreTERM {
		script = `trap '' TERM; echo $$ > "$1"; while :; do sleep 0.1; done`
	}
	cmd := exec.Command("sh", "-c", script, "sh", pidf)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ch) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-ch })
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(pidf); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(cmd.Process.Pid) {
			return ch
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("victim did not write its pid file")
	return nil
}

// TestDrainScript runs the v20.2+ node stop through sh on real
// processes: the drain command runs first, then SIGTERM stops a node;
// one that ignores SIGTERM is killed once the grace seconds pass; a
// failed drain still stops the node; a node that is not running is left
// alone and its drain is not run (a resumed swap repeats nothing).
func TestDrainScript(t *testing.T) {
	for _, tt := range []struct {
		name       string
		running    bool
		ignoreTERM bool
		drain      string // the drain command's script
		want       []string
	}{
		{"drain then SIGTERM", true, false, `echo drained > "$0"`, []string{"stopped"}},
		{"SIGKILL after the grace", true, true, `echo drained > "$0"`, []string{"still running 1s after SIGTERM: SIGKILL", "stopped"}},
		{"failed drain", true, false, `echo drained > "$0"; exit 3`, []string{"drain failed (exit 3)", "stopped"}},
		{"not running", false, false, `echo drained > "$0"`, []string{"not running"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidf, marker := filepath.Join(dir, "cockroach.pid"), filepath.Join(dir, "drained")
			var done <-chan struct{}
			if tt.running {
				done = victim(t, pidf, tt.ignoreTERM)
			}
			out, err := exec.Command("sh", "-c", crdbDrainScript, "sh", pidf, "1", "sh", "-c", tt.drain, marker).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			_, drained := os.Stat(marker)
			if (drained == nil) != tt.running {
				t.Errorf("drain ran: %v, want %v", drained == nil, tt.running)
			}
			if done != nil {
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Error("the node still runs")
				}
			}
		})
	}
}

func releasePlan(t *testing.T, version string) *plan.Plan {
	t.Helper()
	text := `version: 1
name: r
flavor: cockroach
ssh: {user: ubuntu}
nodes:
  - name: crdb[1-6]
    addr: 10.0.0.[1-6]
    racks: 3
workload:
  - name: w1
    partitions: [0, 2]
  - name: w2
    partitions: [1]
binaries:
  database: {url: https://example.invalid/c, sha256: 0000000000000000000000000000000000000000000000000000000000000000}
license: {organization: o, key: {env: BENCHRIG_RELEASE_TEST_LICENSE}}
tpcc:
  driver: workload
  cockroach_version: ` + version + `
  warehouses: 30
  partitions: 3
  duration: 1m
stages: [start, run, teardown]
`
	t.Setenv("BENCHRIG_RELEASE_TEST_LICENSE", "crl-0-dGVzdA")
	p, err := plan.ParsePlan("/plans/r.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNodeRelease: the release value picks each node command once: up
// to v20.1 `cockroach quit` and no --log; from v20.2 node drain; from
// v21.1 --log YAML naming the host's logs directory; from v25.4 the
// unsafe-internals switch before the replication wait.
func TestNodeRelease(t *testing.T) {
	h := plan.Host{Name: "crdb1", Addr: "10.0.0.1", Dir: "/home/u/it's here"}
	for _, tt := range []struct {
		version        string
		stop, log, pre string
	}{
		{"v20.1", "quit --insecure --host=10.0.0.1", "", ""},
		{"v20.2", "node drain --self --insecure --host=10.0.0.1", "", ""},
		{"v21.1", "node drain --self --insecure --host=10.0.0.1", "--log=file-defaults: {dir: '/home/u/it''s here/logs'}", ""},
		{"v25.3", "node drain --self --insecure --host=10.0.0.1", "--log=file-defaults: {dir: '/home/u/it''s here/logs'}", ""},
		{"v25.4", "node drain --self --insecure --host=10.0.0.1", "--log=file-defaults: {dir: '/home/u/it''s here/logs'}", "SET allow_unsafe_internals = on"},
	} {
		t.Run(tt.version, func(t *testing.T) {
			p := releasePlan(t, tt.version)
			r := releaseOf(p)
			f := cockroachFlavor{p}
			stop := strings.Join(r.stop(f, h).Cmd.Args, " ")
			if !strings.HasSuffix(stop, tt.stop) {
				t.Errorf("stop: %s, want ...%s", stop, tt.stop)
			}
			if got := strings.Join(r.logFlags(h), " "); got != tt.log {
				t.Errorf("log flags: %q, want %q", got, tt.log)
			}
			rel, _ := p.Release()
			if got := strings.Join(rel.BeforeInternals(), ";"); got != tt.pre {
				t.Errorf("internals: %q, want %q", got, tt.pre)
			}
		})
	}
}

// TestAffinityOrder: from v25.1 each workload host lists its own racks'
// nodes in affinity order (URL j serves affinity[j]) and sizes --workers
// and --conns to its own active warehouses; up to v24.x every host lists
// every node in order and passes neither.
func TestAffinityOrder(t *testing.T) {
	for _, tt := range []struct {
		version string
		w1      []int // w1's node order (partitions 0, 2)
		share1  int   // w1's active warehouses
	}{
		{"v24.3", []int{0, 1, 2, 3, 4, 5}, 0},
		// racks: node i in rack i % 3; rack 0 = nodes 0, 3; rack 2 = 2, 5.
		{"v25.1", []int{0, 2, 3, 5}, 20},
		{"v25.4", []int{0, 2, 3, 5}, 20},
	} {
		t.Run(tt.version, func(t *testing.T) {
			p := releasePlan(t, tt.version)
			f := cockroachFlavor{p}
			if got := f.runOrder(p.Workload[0]); !slices.Equal(got, tt.w1) {
				t.Errorf("w1 order %v, want %v", got, tt.w1)
			}
			if got := f.affinityShare(p.Workload[0], 30); got != tt.share1 {
				t.Errorf("w1 share %d, want %d", got, tt.share1)
			}
			// A single affinity: every URL serves it, in node order.
			if got := f.runOrder(p.Workload[1]); len(got) != 6 {
				t.Errorf("w2 order %v", got)
			}
			stages, err := Compile(p, Options{DriverPath: "/bin/true"})
			if err != nil {
				t.Fatal(err)
			}
			var run string
			for _, st := range stages {
				for _, s := range st.Steps {
					if s.Host == "w1" && st.Name == "run" && s.JobName == "run" {
						run = strings.Join(s.Cmd.Args, " ")
					}
				}
			}
			if !strings.Contains(run, "workload run tpcc") {
				t.Fatalf("no run step for w1: %q", run)
			}
			hasWorkers := strings.Contains(run, "--workers 200 --conns 40")
			if hasWorkers != (tt.share1 > 0) {
				t.Errorf("run: %s", run)
			}
		})
	}
}

// TestWorkloadAddrsFile: the addrs file install writes is the host's
// order, so $(cat addrs) hands workload the URLs runOrder chose.
func TestWorkloadAddrsFile(t *testing.T) {
	p := releasePlan(t, "v25.4")
	p.Stages = []string{"install"}
	stages, err := Compile(p, Options{DriverPath: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range stages[0].Steps {
		if s.Host == "w1" && s.What == "write the addrs file" {
			got = s.Cmd.Args[5:]
		}
	}
	var want []string
	for _, i := range []int{0, 2, 3, 5} {
		want = append(want, workloadURL(p.Nodes[i]))
	}
	if want[1] != "postgres://root@10.0.0.3:26257?sslmode=disable" {
		t.Fatalf("URL form %s", want[1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("w1 addrs %v, want %v", got, want)
	}
}
