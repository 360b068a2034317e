package stages_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/runner"
	"github.com/benchrig/benchrig/orchestrator/stages"
	"github.com/benchrig/benchrig/remote"
)

// netnsChild marks the test binary re-run inside its own network
// namespace, where it may narrow the port range without touching the
// machine's.
const netnsChild = "BENCHRIG_TEST_NETNS_CHILD"

// narrowRange is the local port range the test sets in its namespace.
const narrowRange, narrowPorts = "40000 40049", 50

// TestPortRangeRefusesPlanBeforeAnythingRuns shows the real kernel limit
// and the plan refused for it. In a network namespace of its own (unshare
// --user --net, so no privilege is needed and the machine's range is
// untouched) with net.ipv4.ip_local_port_range narrowed to 50 ports, it
// dials one loopback ip:port until connect() fails: exactly 50
// connections, then "cannot assign requested address". It then runs a
// plan whose two workload hosts each open 120 connections to the primary
// through the runner with the Local executor: the real preflight script
// reads the namespace's range, the check refuses the plan naming the
// step, the destination and the range, and no later stage starts.
func TestPortRangeRefusesPlanBeforeAnythingRuns(t *testing.T) {
	if os.Getenv(netnsChild) == "" {
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip("unshare not installed: no network namespace of our own")
		}
		if err := exec.Command(unshare, "--user", "--map-root-user", "--net", "true").Run(); err != nil {
			t.Skipf("no user and network namespaces here (%v)", err)
		}
		cmd := exec.Command(unshare, "--user", "--map-root-user", "--net", os.Args[0], "-test.run=^TestPortRangeRefusesPlanBeforeAnythingRuns$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), netnsChild+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in its own network namespace:\n%s", out)
		if err != nil {
			t.Fatalf("the test failed in its network namespace: %v", err)
		}
		if !strings.Contains(string(out), "--- PASS: TestPortRangeRefusesPlanBeforeAnythingRuns") {
			t.Fatal("the test did not run in its network namespace")
		}
		return
	}
	loopbackUp(t)
	if err := os.WriteFile("/proc/sys/net/ipv4/ip_local_port_range", []byte(narrowRange+"\n"), 0); err != nil {
		t.Fatalf("narrowing the port range in the namespace: %v", err)
	}

	// The kernel's limit, measured: one connection per local port.
	ln, err := net.Listen("tcp", "127.0.0.2:25432")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	var conns []net.Conn
	var dialErr error
	for range 2 * narrowPorts {
		c, err := net.DialTimeout("tcp", "127.0.0.2:25432", 5*time.Second)
		if err != nil {
			dialErr = err
			break
		}
		conns = append(conns, c)
	}
	t.Logf("%d connections to 127.0.0.2:25432 with ip_local_port_range %q, then: %v", len(conns), narrowRange, dialErr)
	if len(conns) != narrowPorts || !errors.Is(dialErr, syscall.EADDRNOTAVAIL) {
		t.Fatalf("opened %d connections to one ip:port, then %v; want %d, then EADDRNOTAVAIL", len(conns), dialErr, narrowPorts)
	}
	for _, c := range conns {
		c.Close()
	}
	ln.Close()

	// The plan: each workload host's run opens 120 connections to the
	// primary, 127.0.0.2:25432.
	dir := t.TempDir()
	text := fmt.Sprintf(`version: 1
name: portrange
flavor: postgres
nodes:
  - name: db[1-2]
    addr: 127.0.0.[2-3]
    sql_port: 25432
    dir: %[1]s/db[1-2]
workload:
  - name: load[1-2]
    dir: %[1]s/load[1-2]
binaries:
  database: {host: /usr/lib/postgresql/15/bin}
preflight:
  fio_size: "0"
  min_free_gb: 0
tpcc:
  warehouses: 2
  conns: 120
  ramp: 1s
  duration: 1m
settings:
  cluster:
    max_connections: "1000"
stages: [preflight, install, start, run]
`, dir)
	p, err := plan.ParsePlan("portrange.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	list, err := stages.Compile(p, stages.Options{DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	var table string
	r := &runner.Runner{Exec: remote.NewLocal(remote.LocalConfig{}), JobTag: "t",
		Observers: []runner.Observer{runner.ObserverFunc(func(e runner.Event) error {
			switch e.Kind {
			case runner.StageStarted:
				started = append(started, e.Stage)
			case runner.StageChecked:
				table = e.Text
			}
			return nil
		})}}
	err = r.Run(context.Background(), list)
	t.Logf("preflight:\n%s", table)
	var pe *stages.PreflightError
	if !errors.As(err, &pe) || pe.Failed != 2 {
		t.Fatalf("want the preflight refusing the two workload hosts, got %v", err)
	}
	for _, h := range []string{"load1", "load2"} {
		var line string
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, h+" ") {
				line = l
			}
		}
		for _, want := range []string{
			"120 to one ip:port of 50 local ports (too many)",
			"FAIL: the run step opens 120 connections from this host to 127.0.0.2:25432, one destination, but net.ipv4.ip_local_port_range 40000-40049 gives 50 local ports",
			"cannot assign requested address",
		} {
			if !strings.Contains(line, want) {
				t.Errorf("%s's row lacks %q:\n%s", h, want, line)
			}
		}
	}
	if strings.Join(started, ",") != "preflight" {
		t.Errorf("stages started: %v; want preflight alone", started)
	}
}

// loopbackUp brings the new namespace's lo up (it starts down), as `ip
// link set lo up` does.
func loopbackUp(t *testing.T) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		t.Fatal(err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		t.Fatalf("bringing lo up: %v", err)
	}
}
