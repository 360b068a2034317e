package stages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/benchrig/benchrig/internal/golden"
	"github.com/benchrig/benchrig/orchestrator/plan"
)

// compileShipped compiles a shipped plan and returns its stages.
func compileShipped(t *testing.T, name string) (*plan.Plan, []Stage) {
	t.Helper()
	withLicense(t)
	p, err := plan.LoadPlan("../../plans/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	return p, list
}

// waitStep is the plan's replication wait.
func waitStep(list []Stage) (Step, bool) {
	for _, st := range list {
		for _, s := range st.Steps {
			if s.What == "wait for up-replication and partitioning" {
				return s, true
			}
		}
	}
	return Step{}, false
}

// TestNeedsOfRecipes pins the needs model's figures at the recipes'
// scale against the figures worked out by hand from the recipes' numbers
// and v20.1's source (crdb.Resources): each node's share of the import,
// its open files over what v20.1 raises its own soft limit to, and a
// replication wait that outlasts the bare 4 hours it had, with the wait
// step's timeout the one the estimate gives.
func TestNeedsOfRecipes(t *testing.T) {
	for _, tc := range []struct {
		plan                  string
		storeGB               float64 // share / 0.925
		minFiles              int     // the node's open files at least
		waitMin, waitMax      time.Duration
		overOwnRaise, hasWait bool
	}{
		// 8 TB x 3 / 81 = 296.3 GB; 12,350 connections.
		{plan: "tpcc-100k", storeGB: 320.3, minFiles: 12350 + 2*2207 + 256, waitMin: 6 * time.Hour, waitMax: 7 * time.Hour, overOwnRaise: true, hasWait: true},
		// 1.6 TB at 15 x 8 MiB/s = 3.5 h (the estimate), + 640 GB at 15 x 128 MiB/s.
		{plan: "tpcc-10k", storeGB: 173.0, minFiles: 1334, waitMin: 3*time.Hour + 30*time.Minute, waitMax: 3*time.Hour + 45*time.Minute, hasWait: true},
		// 11.2 TB x 3 / 81 = 414.8 GB; leases: one replica per range moves at 256 MiB/s.
		{plan: "tpcc-v25.4-large", storeGB: 448.4, minFiles: 3457, waitMin: 5 * time.Minute, waitMax: 15 * time.Minute, hasWait: true},
		// 200 GB x 3 / 3 = 200 GB.
		{plan: "tpcc-v25.4-small", storeGB: 216.2, minFiles: 1},
	} {
		t.Run(tc.plan, func(t *testing.T) {
			p, list := compileShipped(t, tc.plan)
			c := list[0].Check
			n := c.Nodes[p.Nodes[0].Name]
			if got := float64(n.StoreBytes) / 1e9; got < tc.storeGB-0.1 || got > tc.storeGB+0.1 {
				t.Errorf("store bytes %.1f GB, want %.1f", got, tc.storeGB)
			}
			if n.Store != "/mnt/data1/cockroach" || n.StoreMount != "/mnt/data1" {
				t.Errorf("store %q on %q, want the pages' instance store", n.Store, n.StoreMount)
			}
			if n.OpenFiles < tc.minFiles || (n.OpenFiles > n.Recommended) != tc.overOwnRaise {
				t.Errorf("open files %d (%s), want at least %d, over the node's own raise to %d: %v", n.OpenFiles, n.OpenFilesWhy, tc.minFiles, n.Recommended, tc.overOwnRaise)
			}
			w, ok := waitStep(list)
			if ok != tc.hasWait {
				t.Fatalf("replication wait: %v, want %v", ok, tc.hasWait)
			}
			if !ok {
				return
			}
			var long LongStep
			for _, l := range c.Long {
				if l.Step == w.What {
					long = l
				}
			}
			if long.Estimate < tc.waitMin || long.Estimate > tc.waitMax {
				t.Errorf("wait estimate %s (%s), want %s..%s", long.Estimate, long.Basis, tc.waitMin, tc.waitMax)
			}
			if w.Timeout != long.Timeout || w.Timeout != settleMargin*long.Estimate+settleSlack+2*time.Minute {
				t.Errorf("wait timeout %s, the needs table's %s, estimate %s", w.Timeout, long.Timeout, long.Estimate)
			}
		})
	}
}

// TestNeedsDoc holds docs/needs.md to the needs tables the dry-run of
// each shipped plan opens with (-update rewrites it).
func TestNeedsDoc(t *testing.T) {
	files, err := filepath.Glob("../../plans/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(needsDocHead)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		p, list := compileShipped(t, name)
		if len(list) == 0 || list[0].Check == nil {
			continue
		}
		b.WriteString("\n## " + name + "\n\n" + p.Description + "\n\n```\n" + list[0].Check.needsTables() + "```\n")
	}
	goldenfile.Check(t, "../../../docs/needs.md", []byte(b.String()))
}

const needsDocHead = `# What each machine needs, per shipped plan

Generated from the needs model (orchestrator/stages/needs.go) by
` + "`go test ./orchestrator/stages -run TestNeedsDoc -update`" + `: the tables each
plan's dry-run opens with. Preflight measures every figure on every host
(free bytes on the file system of each node's store and whether it is the
plan's store_mount, the open-files limit cockroach start will get, memory,
the local port range) and refuses a plan that does not fit, naming the
step, host, need, have and fix. Waits' timeouts follow from the estimates.

Where the figures come from: connections from the driver's own sizing
(tpcc.RunNeeds) of each step's flags; a node's open files are its
connections, its store engine's files and its own network, with the
release's figures in crdb.Resources (crdb/resources.go, each with the
source line it was read at); store bytes are the recipes' 80 MB per
warehouse, times the replicas, over the nodes, over the allocator's
full fraction; the replication wait copies the missing and misplaced
replicas at the snapshot rates the release and the plan's settings give.
`

// runPreflightScript runs the real preflight script on path under argv0
// (a prefix such as prlimit), as a node's probe.
func runPreflightScript(t *testing.T, prefix []string, path string) string {
	t.Helper()
	args := append(append([]string(nil), prefix...), "sh", "-c", preflightScript, "sh", path, "0", "", "0", "0", "x")
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		t.Fatalf("preflight script: %v", err)
	}
	return string(out)
}

// needRoot skips a test that mounts without root, but fails it under CI,
// which runs as root.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root: this test must run there")
		}
		t.Skip("needs root to mount a small file system")
	}
}

// TestPreflightStoreTooSmallReal makes a 16 MiB file system, puts a
// node's store on it, and has the real preflight script measure it: a
// node whose share of the import is larger is refused, naming the step,
// the dimension, need and have; one whose share fits passes; a store on
// another file system than its store_mount is refused.
func TestPreflightStoreTooSmallReal(t *testing.T) {
	needRoot(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	store := filepath.Join(mnt, "cockroach")
	out := runPreflightScript(t, nil, store)
	for _, tc := range []struct {
		name string
		need NodeNeed
		fail string // "" passes
	}{
		{"share over the file system", NodeNeed{StoreBytes: 64_000_000, StoreWhy: "the test's share", StoreMount: mnt},
			"import: store bytes: need 64.0 MB at " + store + " (the test's share), have 16.8 MB free on " + mnt},
		{"share fits", NodeNeed{StoreBytes: 8 << 20, StoreWhy: "the test's share", StoreMount: mnt}, ""},
		{"not on its mount", NodeNeed{StoreBytes: 8 << 20, StoreMount: "/mnt/data1"},
			"import: store file system: " + store + " is on " + mnt + ", not on /mnt/data1 (store_mount)"},
	} {
		check := &Check{Kind: "preflight", Hosts: []string{"crdb01"}, MaxClockOffset: time.Second, Nodes: map[string]NodeNeed{"crdb01": tc.need}}
		table, err := check.Judge([]ProbeResult{{Host: "crdb01", Probe: "preflight", Stdout: out}})
		if (err != nil) != (tc.fail != "") || !strings.Contains(table, tc.fail) {
			t.Errorf("%s: %v\n%s", tc.name, err, table)
		}
	}
}

// TestPreflightNodeOpenFilesReal runs the real preflight script under a
// low open-files limit (prlimit, soft and hard 4096, as a node's login
// would have it): a node that needs its connections plus the engine's
// share above that is refused; one within it passes. The limit the
// script reports is the one the start step's raise gives cockroach.
func TestPreflightNodeOpenFilesReal(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	out := runPreflightScript(t, []string{"prlimit", "--nofile=1024:4096"}, t.TempDir())
	if !strings.Contains(out, "nofile_start=4096\n") {
		t.Fatalf("the start step's raise: want the hard limit 4096, got\n%s", out)
	}
	for _, tc := range []struct {
		need NodeNeed
		fail string
	}{
		{NodeNeed{Step: "allocate", Conns: 3000, EngineFiles: 1500, Network: 256, OpenFiles: 4756, OpenFilesWhy: "3000 connections + 1500 engine files + 256 network", Recommended: 15000},
			"allocate: open files: need 4756 (3000 connections + 1500 engine files + 256 network), have 4096"},
		{NodeNeed{Step: "run", Conns: 2000, EngineFiles: 1500, Network: 256, OpenFiles: 3756, Recommended: 15000}, ""},
	} {
		check := &Check{Kind: "preflight", Hosts: []string{"crdb01"}, MaxClockOffset: time.Second, Nodes: map[string]NodeNeed{"crdb01": tc.need}}
		table, err := check.Judge([]ProbeResult{{Host: "crdb01", Probe: "preflight", Stdout: out}})
		if (err != nil) != (tc.fail != "") || !strings.Contains(table, tc.fail) {
			t.Errorf("need %d: %v\n%s", tc.need.OpenFiles, err, table)
		}
	}
}

// TestStoreDeadAfter: the swap's wait for a restarted node is the plan's
// server.time_until_store_dead when it sets one, else the release's
// default.
func TestStoreDeadAfter(t *testing.T) {
	for _, tc := range []struct {
		settings string
		want     time.Duration
	}{
		{"", 5 * time.Minute},
		{"settings:\n  cluster:\n    server.time_until_store_dead: 10m\n", 10 * time.Minute},
	} {
		text := "version: 1\nname: t\nflavor: cockroach\nnodes:\n  - name: db[1-3]\nworkload:\n  - name: w1\nbinaries:\n" +
			"  database: {url: \"https://example.invalid/cockroach-v20.1.17\", sha256: 0000000000000000000000000000000000000000000000000000000000000000}\n" +
			"  swap: {url: \"https://example.invalid/cockroach-v20.1.17b\", sha256: 0000000000000000000000000000000000000000000000000000000000000000}\n" +
			tc.settings + "tpcc:\n  warehouses: 1\nstages: [swap]\n"
		p, err := plan.ParsePlan("p.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		list, err := Compile(p, Options{DriverPath: "/opt/benchrig"})
		if err != nil {
			t.Fatal(err)
		}
		waits := 0
		for _, s := range list[0].Steps {
			if s.What == "wait for the node" {
				waits++
				if s.Timeout != tc.want {
					t.Errorf("%q: the wait for a restarted node is %s, want %s", tc.settings, s.Timeout, tc.want)
				}
			}
		}
		if waits != 3 {
			t.Errorf("%d waits for a restarted node, want one per node", waits)
		}
	}
}
