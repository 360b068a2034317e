package stages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/orchestrator/plan"
	"github.com/benchrig/benchrig/orchestrator/share"
	"github.com/benchrig/benchrig/remote"
)

func hostsNamed(prefix string, n int) []plan.Host {
	var hs []plan.Host
	for i := 1; i <= n; i++ {
		hs = append(hs, plan.Host{Name: fmt.Sprintf("%s%02d", prefix, i), Addr: fmt.Sprintf("10.0.0.%d", i)})
	}
	return hs
}

// TestShareTree: the recipe's 86 hosts are a tree of depth 3 (1, 8, 64,
// 13) whose inner vertices are nodes, none with more than shareFanout
// children while nodes remain; with one node and many workload hosts
// the node takes them all; without a node nobody fetches.
func TestShareTree(t *testing.T) {
	for _, tc := range []struct {
		name            string
		nodes, workload int
		relay           bool // hosts start with nodes[0] only
		wantByDepth     []int
		wantMaxChildren int
	}{
		{"100k recipe", 81, 5, false, []int{1, 8, 64, 13}, shareFanout},
		{"local demo", 3, 2, false, []int{1, 4}, 4},
		{"crud: first node relays", 81, 5, true, []int{1, 5}, 5},
		{"one node, 20 workload hosts", 1, 20, false, []int{1, 20}, 20},
		{"three nodes, 30 workload hosts: round robin past the fan-out", 3, 30, false, []int{1, 10, 22}, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, work := hostsNamed("n", tc.nodes), hostsNamed("w", tc.workload)
			hosts := append(append([]plan.Host(nil), nodes...), work...)
			if tc.relay {
				hosts = append([]plan.Host{nodes[0]}, work...)
			}
			parent, depth, maxDepth := shareTree(hosts, nodes)
			byDepth := make([]int, maxDepth+1)
			children := map[string]int{}
			for _, h := range hosts {
				byDepth[depth[h.Name]]++
				p, ok := parent[h.Name]
				if h.Name == hosts[0].Name {
					if ok {
						t.Errorf("the root has a parent")
					}
					continue
				}
				if !ok {
					t.Fatalf("%s has no parent", h.Name)
				}
				if !strings.HasPrefix(p.Name, "n") {
					t.Errorf("%s fetches from %s, a workload host", h.Name, p.Name)
				}
				if depth[p.Name] != depth[h.Name]-1 {
					t.Errorf("%s at depth %d fetches from %s at depth %d", h.Name, depth[h.Name], p.Name, depth[p.Name])
				}
				children[p.Name]++
			}
			most := 0
			for _, n := range children {
				most = max(most, n)
			}
			if fmt.Sprint(byDepth) != fmt.Sprint(tc.wantByDepth) || most != tc.wantMaxChildren {
				t.Errorf("hosts by depth %v, most children %d; want %v, %d", byDepth, most, tc.wantByDepth, tc.wantMaxChildren)
			}
		})
	}
	// A workload host first: nobody fetches from it.
	parent, _, maxDepth := shareTree(hostsNamed("w", 5), nil)
	if len(parent) != 0 || maxDepth != 0 {
		t.Errorf("workload hosts fetch from each other: %v", parent)
	}
}

// TestShareSteps: the install stage's phases for the 5-host demo plan
// and the data every fetch step carries.
func TestShareSteps(t *testing.T) {
	p, err := plan.LoadPlan("../../plans/local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	list, err := Compile(p, Options{Only: []string{"install"}, DriverPath: "/opt/benchrig"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list[0].Steps {
		switch s.Kind {
		case Fetch:
			got = append(got, fmt.Sprintf("%d %s fetch from %q %s", s.Phase, s.Host, s.Source, s.URL))
			if s.Transfer.Local != "/opt/benchrig" || s.Transfer.Remote != "benchrig-local/"+s.Host+"/benchrig" {
				t.Errorf("%s: transfer %+v", s.Host, s.Transfer)
			}
		case Job:
			got = append(got, fmt.Sprintf("%d %s job %d %s", s.Phase, s.Host, s.JobMode, strings.Join(s.Cmd.Args, " ")))
		}
	}
	want := []string{
		`0 db1 fetch from "" `,
		`0 db1 job 1 ./benchrig serve-file --listen 127.0.0.2:29876 --for 15m --stream .benchrig.gz benchrig`,
		`1 db2 fetch from "db1" http://127.0.0.2:29876/benchrig.gz`,
		`1 db3 fetch from "db1" http://127.0.0.2:29876/benchrig.gz`,
		`1 load1 fetch from "db1" http://127.0.0.2:29876/benchrig.gz`,
		`1 load2 fetch from "db1" http://127.0.0.2:29876/benchrig.gz`,
		`2 db1 job 2 `,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("install steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Sharing off: every host is sent the stream, in one phase.
	p.Binaries.SharePort = -1
	list, _ = Compile(p, Options{Only: []string{"install"}, DriverPath: "/opt/benchrig"})
	for _, s := range list[0].Steps {
		if s.Phase != 0 || s.Kind == Job || (s.Kind == Fetch && s.Source != "") {
			t.Errorf("share_port -1: %s %s phase %d source %q", s.Host, s.Kind, s.Phase, s.Source)
		}
	}
}

// TestFetchScript runs the real fetch script (sh, curl, gzip, sha256sum)
// against a real `benchrig serve-file` server on 127.0.0.1: a fetch
// installs the binary and removes the stream; a second finds it there; a
// stream cut short is resumed with a Range request; a wrong digest
// installs nothing and removes the stream; an unpack with nothing
// uploaded fails with status 3; an uploaded stream is unpacked.
func TestFetchScript(t *testing.T) {
	for _, prog := range []string{"curl", "gzip", "sha256sum"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "benchrig")
	content := bytes.Repeat([]byte("0123456789abcdef benchrig\n"), 200000) // 5 MB
	if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src, content, 0o755); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(content)
	sum := hex.EncodeToString(h[:])
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	log := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = (&share.Server{Listen: addr, File: src, For: time.Minute, Log: log}).Run(ctx) }()
	url := "http://" + addr + share.URLPath(src)

	host := filepath.Join(dir, "host with space")
	if err := os.MkdirAll(host, 0o755); err != nil {
		t.Fatal(err)
	}
	step := Step{Kind: Fetch, Source: "db1", URL: url, Transfer: remote.Transfer{Local: src, Remote: filepath.Join(host, "benchrig"), SHA256: sum}}
	gz := gzPath(step.Transfer.Remote)
	runScript := func(c remote.Cmd) (string, int) {
		t.Helper()
		out, err := exec.Command(c.Args[0], c.Args[1:]...).CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	installed := func() bool {
		data, err := os.ReadFile(step.Transfer.Remote)
		return err == nil && bytes.Equal(data, content)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	leftover := func() bool { return exists(gz + ".part") }
	stream, err := remote.GzipStream(bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	kept := func() bool {
		data, err := os.ReadFile(gz)
		return err == nil && bytes.Equal(data, stream)
	}

	if out, code := runScript(step.FetchCmd()); code != 0 || !installed() || leftover() || !kept() {
		t.Fatalf("fetch: status %d, installed %v, partial left %v, stream kept %v: %s", code, installed(), leftover(), kept(), out)
	}
	if out, code := runScript(step.FetchCmd()); code != 0 || !strings.Contains(out, "already installed") {
		t.Errorf("second fetch: status %d: %s", code, out)
	}

	// A kept stream that is not the installed binary's is dropped.
	if err := os.WriteFile(gz, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runScript(step.FetchCmd()); code != 0 || exists(gz) {
		t.Errorf("stale stream: status %d, kept %v: %s", code, exists(gz), out)
	}

	// Cut short: the first half of the stream is there; the fetch asks
	// for the rest.
	os.Remove(step.Transfer.Remote)
	half := len(stream) / 2
	if err := os.WriteFile(gz+".part", stream[:half], 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runScript(step.FetchCmd()); code != 0 || !installed() || !kept() {
		t.Fatalf("resumed fetch: status %d: %s", code, out)
	}
	if want := fmt.Sprintf(`range "bytes=%d-"`, half); !strings.Contains(log.String(), want) {
		t.Errorf("the server saw no %s:\n%s", want, log)
	}

	// A digest the stream does not have.
	os.Remove(step.Transfer.Remote)
	os.Remove(gz)
	bad := step
	bad.Transfer.SHA256 = strings.Repeat("0", 64)
	if out, code := runScript(bad.FetchCmd()); code != 4 || installed() || leftover() {
		t.Errorf("wrong digest: status %d, installed %v, stream left %v: %s", code, installed(), leftover(), out)
	}
	// Nothing uploaded, then an upload.
	if out, code := runScript(step.UnpackCmd()); code != 3 || installed() {
		t.Errorf("unpack of nothing: status %d: %s", code, out)
	}
	if err := os.WriteFile(step.Upload().Remote, stream, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runScript(step.UnpackCmd()); code != 0 || !installed() || leftover() || !kept() {
		t.Errorf("unpack: status %d, installed %v: %s", code, installed(), out)
	}
}
