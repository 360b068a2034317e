package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchrig/benchrig/internal/syncbuf"
	"github.com/benchrig/benchrig/remote"
	"github.com/benchrig/benchrig/remote/sshtest"
)

// The fault lab: real sshd behind sshtest.Proxy. These tests pin down
// what the proxy does to a real connection and what the SSH executor
// makes of it; the runner's re-attach is tested on top of them.

func faultSSH(t *testing.T, l *sshtest.Lab) *remote.SSH {
	return newSSH(t, l, func(c *remote.SSHConfig) {
		c.KeepaliveInterval = 200 * time.Millisecond
		c.KeepaliveCountMax = 3
		c.ConnectTimeout = 2 * time.Second
		c.DialRetries = -1
	})
}

// TestBlackholeDetectedByKeepalive: a black-holed link keeps its TCP
// connection open and answers nothing; keepalives must fail a running
// command with a TransportError in bounded time (here 3 probes 200 ms
// apart: under 2 s with slack), and after Heal the host works again
// over a new connection.
func TestBlackholeDetectedByKeepalive(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	s := faultSSH(t, l)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.Connect(ctx, l.Name(0)); err != nil {
		t.Fatal(err)
	}
	p := l.Proxy(0)
	go func() {
		time.Sleep(300 * time.Millisecond)
		p.Blackhole(0)
	}()
	start := time.Now()
	_, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"sleep", "20"}})
	took := time.Since(start)
	var te *remote.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "keepalive") {
		t.Fatalf("err = %v, want a TransportError naming the keepalives", err)
	}
	if took > 5*time.Second {
		t.Errorf("the black hole was noticed after %v", took)
	}
	// A dial during the black hole gets no handshake.
	if err := s.Connect(ctx, l.Name(0)); err == nil {
		t.Error("connected through a black hole")
	}
	p.Heal()
	if _, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Errorf("after Heal: %v", err)
	}
	if n := p.Accepted(); n < 3 {
		t.Errorf("proxy accepted %d connections, want the first, the refused dial and the redial", n)
	}
}

// TestShortBlackholeHeldNotLost: a black hole shorter than the keepalive
// budget loses nothing: what was sent is delivered after Heal and the
// command finishes on the same connection.
func TestShortBlackholeHeldNotLost(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	s := newSSH(t, l, nil) // default keepalives: 15 s x 3
	ctx := context.Background()
	p := l.Proxy(0)
	go func() {
		time.Sleep(300 * time.Millisecond)
		p.Blackhole(1500 * time.Millisecond)
	}()
	start := time.Now()
	res, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"sh", "-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.2; done"}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(res.Stdout)); strings.Join(got, ",") != "1,2,3,4,5,6" {
		t.Errorf("output %q", res.Stdout)
	}
	if time.Since(start) < 1500*time.Millisecond {
		t.Errorf("the black hole did not hold the output (done in %v)", time.Since(start))
	}
	if p.Accepted() != 1 {
		t.Errorf("%d connections, want 1", p.Accepted())
	}
}

// TestResetDropsEveryConnection: Reset closes both ends; the running
// command fails at once with a TransportError, the next command redials.
func TestResetDropsEveryConnection(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	s := faultSSH(t, l)
	ctx := context.Background()
	if err := s.Connect(ctx, l.Name(0)); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		l.Proxy(0).Reset()
	}()
	start := time.Now()
	_, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"sleep", "20"}})
	var te *remote.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want a TransportError", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("reset noticed after %v", time.Since(start))
	}
	if _, err := s.Run(ctx, l.Name(0), remote.Cmd{Args: []string{"true"}}); err != nil {
		t.Errorf("after reset: %v", err)
	}
}

// TestDelayAndLimit: latency and a bandwidth cap slow a download of
// 256 KiB at 128 KiB/s to about two seconds, and the file arrives whole.
func TestDelayAndLimit(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	s := newSSH(t, l, nil)
	ctx := context.Background()
	src := filepath.Join(l.HostDir(0), "blob")
	data := []byte(strings.Repeat("0123456789abcdef", 16<<10))
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Connect(ctx, l.Name(0)); err != nil {
		t.Fatal(err)
	}
	p := l.Proxy(0)
	p.Delay(20 * time.Millisecond)
	p.Limit(128 << 10)
	dst := filepath.Join(t.TempDir(), "blob")
	start := time.Now()
	if err := s.Get(ctx, l.Name(0), remote.Transfer{Local: dst, Remote: src}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	got, err := os.ReadFile(dst)
	if err != nil || len(got) != len(data) {
		t.Fatalf("downloaded %d bytes (%v), want %d", len(got), err, len(data))
	}
	if took < time.Second {
		t.Errorf("256 KiB at 128 KiB/s took %v", took)
	}
}

// TestFollowFromOffset: FollowFrom returns where it stopped, so a
// follow cut by a reset goes on from there without showing a line twice.
func TestFollowFromOffset(t *testing.T) {
	l := sshtest.StartT(t, 1, sshtest.WithProxies())
	var out syncbuf.Buffer
	s := newSSH(t, l, func(c *remote.SSHConfig) {
		c.Output = &out
		c.KeepaliveInterval = 200 * time.Millisecond
		c.DialRetries = -1
	})
	ctx := context.Background()
	dir := filepath.Join(l.HostDir(0), "jobs")
	j, err := remote.StartJob(ctx, s, l.Name(0), dir, "count", remote.Cmd{Args: []string{"sh", "-c", "i=1; while [ $i -le 30 ]; do echo line$i; i=$((i+1)); sleep 0.1; done"}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(1200 * time.Millisecond)
		l.Proxy(0).Reset()
	}()
	next, err := j.FollowFrom(ctx, s, 1)
	var te *remote.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("follow across a reset: %v, want a TransportError", err)
	}
	if next < 3 || next > 25 {
		t.Fatalf("stopped before line %d", next)
	}
	if next, err = j.FollowFrom(ctx, s, next); err != nil || next != 31 {
		t.Fatalf("follow again: next %d, %v", next, err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(out.String(), "\n") {
		if _, text, ok := strings.Cut(line, " | "); ok {
			seen[text]++
		}
	}
	for i := 1; i <= 30; i++ {
		if n := seen[fmt.Sprintf("line%d", i)]; n != 1 {
			t.Errorf("line%d shown %d times", i, n)
		}
	}
}
