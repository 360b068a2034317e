package remote_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// opensshArgs are the client options every OpenSSH run in the
// benchmarks uses: the lab's key and known_hosts, strict checking, no
// user config, so OpenSSH does the same work benchrig does.
func opensshArgs(l *sshtest.Lab) []string {
	return []string{"-F", "none", "-i", l.IdentityPath(),
		"-o", "UserKnownHostsFile=" + l.KnownHostsPath(), "-o", "StrictHostKeyChecking=yes",
		"-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"}
}

// BenchmarkFanout32 runs `true` on 32 loopback hosts three ways, side by
// side in each iteration: benchrig (a fresh executor each time, so the
// 32 connects and handshakes are included, as a user running
// `benchrig exec` pays them), a sequential OpenSSH loop, and parallel-ssh
// -p 32. It reports each one's wall time per fan-out and the ratios
// x_vs_sequential (target >= 10) and x_vs_pssh (target >= 1).
func BenchmarkFanout32(b *testing.B) {
	for _, bin := range []string{"ssh", "parallel-ssh"} {
		if _, err := exec.LookPath(bin); err != nil {
			b.Skipf("%s not installed (run .ci/setup)", bin)
		}
	}
	l := sshtest.StartT(b, 32)
	hostsFile := filepath.Join(b.TempDir(), "hosts")
	if err := l.WriteHostsFile(hostsFile); err != nil {
		b.Fatal(err)
	}
	ssh := opensshArgs(l)
	psshX := ""
	for _, a := range ssh {
		psshX += " " + strconv.Quote(a)
	}
	ctx := context.Background()
	targets := l.Targets()
	cfg := remote.SSHConfig{KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: "none"}

	var ours, seq, pssh time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s, err := remote.NewSSH(targets, cfg)
		if err != nil {
			b.Fatal(err)
		}
		outs := remote.Each(ctx, s.Hosts(), 0, func(ctx context.Context, host string) error {
			_, err := s.Run(ctx, host, remote.Cmd{Args: []string{"true"}})
			return err
		})
		s.Close()
		if err := remote.Failed(outs); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t0)

		t0 = time.Now()
		for _, tg := range targets {
			args := append(append([]string(nil), ssh...), "-p", strconv.Itoa(tg.Port), tg.User+"@"+tg.Host, "true")
			if out, err := exec.Command("ssh", args...).CombinedOutput(); err != nil {
				b.Fatalf("ssh %s: %v: %s", tg.Name, err, out)
			}
		}
		seq += time.Since(t0)

		t0 = time.Now()
		out, err := exec.Command("parallel-ssh", "-h", hostsFile, "-p", "32", "-x", psshX, "true").CombinedOutput()
		if err != nil {
			b.Fatalf("parallel-ssh: %v: %s", err, out)
		}
		pssh += time.Since(t0)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(ours.Seconds()*1000/n, "benchrig_ms")
	b.ReportMetric(seq.Seconds()*1000/n, "ssh_loop_ms")
	b.ReportMetric(pssh.Seconds()*1000/n, "pssh_ms")
	b.ReportMetric(float64(seq)/float64(ours), "x_vs_sequential")
	b.ReportMetric(float64(pssh)/float64(ours), "x_vs_pssh")
}

// BenchmarkUpload256MiB uploads a 256 MiB file to one loopback host with
// benchrig's Put (fresh executor each time: connect, SFTP with concurrent
// writes, sha256 check on the host, rename) and with OpenSSH scp, side by
// side, and reports both throughputs and their ratio (target >= 0.9).
// Client and server share this machine's two cores.
func BenchmarkUpload256MiB(b *testing.B) {
	if _, err := exec.LookPath("scp"); err != nil {
		b.Skip("scp not installed (run .ci/setup)")
	}
	l := sshtest.StartT(b, 1)
	const size = 256 << 20
	local := filepath.Join(b.TempDir(), "blob")
	writeRandom(b, local, size)
	tg := l.Targets()[0]
	cfg := remote.SSHConfig{KnownHostsFiles: []string{l.KnownHostsPath()}, NoAgent: true, SSHConfigFile: "none"}
	ctx := context.Background()
	ours := filepath.Join(l.HostDir(0), "blob.benchrig")
	theirs := filepath.Join(l.HostDir(0), "blob.scp")

	var tOurs, tScp time.Duration
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		os.Remove(ours)
		os.Remove(theirs)
		t0 := time.Now()
		s, err := remote.NewSSH([]remote.Target{tg}, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Put(ctx, tg.Name, remote.Transfer{Local: local, Remote: ours}); err != nil {
			b.Fatal(err)
		}
		s.Close()
		tOurs += time.Since(t0)

		t0 = time.Now()
		args := append(opensshArgs(l), "-P", strconv.Itoa(tg.Port), local, fmt.Sprintf("%s@%s:%s", tg.User, tg.Host, theirs))
		if out, err := exec.Command("scp", args...).CombinedOutput(); err != nil {
			b.Fatalf("scp: %v: %s", err, out)
		}
		tScp += time.Since(t0)
	}
	b.StopTimer()
	mb := float64(size) / 1e6 * float64(b.N)
	b.ReportMetric(mb/tOurs.Seconds(), "benchrig_MB/s")
	b.ReportMetric(mb/tScp.Seconds(), "scp_MB/s")
	b.ReportMetric(tScp.Seconds()/tOurs.Seconds(), "x_vs_scp")
	os.Remove(ours)
	os.Remove(theirs)
}
