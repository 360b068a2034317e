package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/cmd/benchrig/e2e"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// TestPreflightRefusesNeeds runs a cockroach plan's preflight on real
// hosts (sshd on loopback) whose node has what the plan does not fit:
// its store is on a 16 MiB file system (a tmpfs made for the test), below
// its share of a one-warehouse import, and its login's open-files limit
// is 1024 (sshd started at that limit, as a host whose limits.conf says
// so), below what v20.1 needs to start at all. Preflight refuses the plan
// naming step, dimension, need and have, and the run stops before the
// install stage changes anything. No cockroach binary is needed: nothing
// after preflight runs.
func TestPreflightRefusesNeeds(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root: this test must run there")
		}
		t.Skip("needs root to mount a small file system")
	}
	e := e2e.NewBase(t)
	e.Lab = sshtest.StartT(t, 2, sshtest.WithNofile(1024))
	u, err := user.Lookup(e.Lab.User())
	if err != nil {
		t.Fatal(err)
	}
	e.Home = u.HomeDir
	e.Prefix = fmt.Sprintf("benchrig-e2e-needs-%d", time.Now().UnixNano()%1e9)
	t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(e.Home, e.Prefix)) })
	mnt, err := os.MkdirTemp("", "benchrig-store-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m,mode=0777", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run(); _ = os.Remove(mnt) })

	dir := t.TempDir()
	cfg := filepath.Join(e.Lab.Dir(), "ssh_config")
	if err := e.Lab.WriteSSHConfig(cfg, "lab-", []string{"db1", "load1"}); err != nil {
		t.Fatal(err)
	}
	plan := fmt.Sprintf(`version: 1
name: e2e
flavor: cockroach
ssh:
  config: %s
  known_hosts: %s
nodes:
  - name: db1
    ssh: lab-db1
    addr: 127.0.0.2
    store: %s/cockroach
    store_mount: %s
    dir: %s/db1
workload:
  - name: load1
    ssh: lab-load1
    dir: %s/load1
binaries:
  database:
    url: https://example.invalid/cockroach-v20.1.17.linux-amd64.tgz
    member: cockroach-v20.1.17.linux-amd64/cockroach
    sha256: 0000000000000000000000000000000000000000000000000000000000000000
preflight:
  fio_size: "0"
tpcc:
  warehouses: 1
  ramp: 1s
  duration: 5s
stages: [preflight, install, start]
`, cfg, e.Lab.KnownHostsPath(), mnt, mnt, e.Prefix, e.Prefix)
	e.Plan = filepath.Join(dir, "e2e.yaml")
	if err := os.WriteFile(e.Plan, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Runs = filepath.Join(dir, "runs")
	e.Start("run", "--runs-dir", e.Runs, e.Plan)
	if code := e.Wait(3 * time.Minute); code != e2e.ExitCheck {
		t.Fatalf("exit %d, want %d (a failed check)\n%s", code, e2e.ExitCheck, e.Logs.String())
	}
	log, err := os.ReadFile(filepath.Join(e.RunDir(), "output.log"))
	if err != nil {
		t.Fatal(err)
	}
	out := e.Logs.String() + string(log)
	for _, want := range []string{
		// 80 MB x 3 replicas / 1 node, over 0.925.
		"import: store bytes: need 259.5 MB at " + mnt + "/cockroach",
		"have 16.8 MB free on " + mnt,
		// v20.1 refuses to start below 1,700 + 256.
		"open files: need 1956",
		"have 1024 (the limit cockroach start gets",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("preflight does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "== stage install") {
		t.Error("the run went on to install after a failed preflight")
	}
	if b, _ := os.ReadFile(filepath.Join(e.Home, e.Prefix, "db1", "cockroach.upload")); len(b) > 0 || bytes.Contains(log, []byte("install cockroach")) {
		t.Error("install ran")
	}
}
